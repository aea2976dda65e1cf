#!/usr/bin/env python3
"""Writes the sysfs/procfs fixture trees of tests/data/sysroot/ (README.md there says where each
comes from). Holds only the files peerbench's node-evidence readers read.

  make_fixtures.py capture NAME   copy this machine's files into NAME/ (run once, on the machine)
  make_fixtures.py derived        write the trees derived from a capture or from public lspci
                                  output (each change named in README.md)
"""
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEVICE_FILES = ["vendor", "class", "device", "config", "resource", "numa_node",
                "current_link_speed", "max_link_speed", "current_link_width", "max_link_width"]


def put(tree, path, data, mode="w"):
    full = os.path.join(HERE, tree, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def link(tree, path, target):
    full = os.path.join(HERE, tree, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if os.path.lexists(full):
        os.remove(full)
    os.symlink(target, full)


def keep_dir(tree, path):
    put(tree, path.rstrip("/") + "/.keep", "")


def read(path, binary=False):
    with open(path, "rb" if binary else "r") as f:
        return f.read()


def capture(name):
    shutil.rmtree(os.path.join(HERE, name), ignore_errors=True)
    for p in ["/proc/cmdline", "/proc/cpuinfo", "/proc/1/cgroup", "/proc/self/cgroup",
              "/proc/driver/nvidia/version", "/.dockerenv", "/run/.containerenv",
              "/sys/class/dmi/id/sys_vendor", "/sys/class/dmi/id/product_name"]:
        if os.path.isfile(p):
            put(name, p, read(p, True))
    for p in ["/proc/self/ns/ipc", "/proc/1/ns/ipc"]:
        try:
            link(name, p, os.readlink(p))
        except PermissionError:  # as on the machine it is read on: left out
            pass
    keep_dir(name, "/dev/shm")
    groups = "/sys/kernel/iommu_groups"
    keep_dir(name, groups)
    for g in sorted(os.listdir(groups)) if os.path.isdir(groups) else []:
        put(name, f"{groups}/{g}/type", read(f"{groups}/{g}/type"))
    base = "/sys/bus/pci/devices"
    for bdf in sorted(os.listdir(base)):
        target = os.readlink(f"{base}/{bdf}")
        link(name, f"{base}/{bdf}", target)
        real = os.path.realpath(f"{base}/{bdf}")
        for f in DEVICE_FILES:
            if os.path.isfile(f"{real}/{f}"):
                put(name, f"{real}/{f}", read(f"{real}/{f}", True))


# ---- Configuration space built from lspci's lines.
def config_space(port_type, acs_cap=None, acs_ctl=None, size=4096):
    """A bridge's config space: vendor/device 0, Status Cap+, class 0x0604, header type 1, a PCI
    Express capability at 0x40 whose port type is `port_type` (4 root port, 5 switch upstream,
    6 switch downstream), and, when acs_cap is given, the ACS extended capability (ID 0x000D,
    version 1) at 0x100 holding acs_cap and acs_ctl."""
    c = bytearray(size)
    struct.pack_into("<H", c, 0x06, 0x0010)       # Status: capabilities list
    c[0x0A], c[0x0B], c[0x0E] = 0x04, 0x06, 0x01  # PCI bridge, type 1 header
    c[0x34] = 0x40
    c[0x40], c[0x41] = 0x10, 0x00                 # PCI Express, last in the list
    struct.pack_into("<H", c, 0x42, 0x0002 | (port_type << 4))
    if acs_cap is not None and size >= 4096:
        struct.pack_into("<IHH", c, 0x100, 0x000D | (1 << 16), acs_cap, acs_ctl)
    return bytes(c)


def bridge(tree, sys_path, port_type, acs_cap=None, acs_ctl=None, size=4096):
    put(tree, sys_path + "/config", config_space(port_type, acs_cap, acs_ctl, size))
    put(tree, sys_path + "/class", "0x060400\n")


def gpu(tree, bdf, sys_path, device=None, bar1=None, gen="16.0 GT/s PCIe", width="16",
        numa="-1"):
    link(tree, f"/sys/bus/pci/devices/{bdf}", "../../../devices" + sys_path[len("/sys/devices"):])
    put(tree, sys_path + "/vendor", "0x10de\n")
    put(tree, sys_path + "/class", "0x030200\n")
    if device:
        put(tree, sys_path + "/device", device + "\n")
    for f, v in [("current_link_speed", gen), ("max_link_speed", gen),
                 ("current_link_width", width), ("max_link_width", width), ("numa_node", numa)]:
        put(tree, sys_path + "/" + f, v + "\n")
    if bar1:
        base = 0x200000000000
        lines = [f"0x{0xfa000000:016x} 0x{0xfaffffff:016x} 0x0000000000040200",
                 f"0x{base:016x} 0x{base + bar1 - 1:016x} 0x000000000014220c"]
        put(tree, sys_path + "/resource", "\n".join(lines) + "\n")


def node_files(tree, cmdline, dockerenv, cgroup, driver=None, cpuinfo_from=None):
    put(tree, "/proc/cmdline", cmdline + "\n")
    put(tree, "/proc/cpuinfo", read(os.path.join(HERE, cpuinfo_from, "proc/cpuinfo"), True)
        if cpuinfo_from else "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae\n")
    put(tree, "/proc/1/cgroup", cgroup + "\n")
    put(tree, "/proc/self/cgroup", cgroup + "\n")
    link(tree, "/proc/self/ns/ipc", "ipc:[4026531839]")
    link(tree, "/proc/1/ns/ipc", "ipc:[4026531839]")
    keep_dir(tree, "/dev/shm")
    keep_dir(tree, "/sys/kernel/iommu_groups")
    if dockerenv:
        put(tree, "/.dockerenv", "")
    if driver:
        put(tree, "/proc/driver/nvidia/version",
            f"NVRM version: NVIDIA UNIX x86_64 Kernel Module  {driver}\n")


def derived():
    # builder-vm-gpu: this machine's capture with 0000:00:05.0 (a virtio device) made an NVIDIA
    # 3D controller.
    shutil.rmtree(os.path.join(HERE, "builder-vm-gpu"), ignore_errors=True)
    shutil.copytree(os.path.join(HERE, "builder-vm"), os.path.join(HERE, "builder-vm-gpu"),
                    symlinks=True)
    dev = "/sys/devices/pci0000:00/0000:00:05.0"
    put("builder-vm-gpu", dev + "/vendor", "0x10de\n")
    put("builder-vm-gpu", dev + "/class", "0x030200\n")

    # gpu-vm-h200x2: the 2 x H200 Firecracker VM of ../shared/REFERENCE.md and runs/h200x2.
    t = "gpu-vm-h200x2"
    shutil.rmtree(os.path.join(HERE, t), ignore_errors=True)
    cap = read(os.path.join(HERE, "builder-vm", "proc/cmdline"))
    node_files(t, cap.strip(), True, "0::/process_api/core", "580.159.04", "builder-vm")
    for bdf in ["0000:00:06.0", "0000:00:07.0"]:
        gpu(t, bdf, "/sys/devices/pci0000:00/" + bdf, "0x2335", None, "32.0 GT/s PCIe")

    # acs-amd-gpp: NVIDIA/nccl#2079, two GPUs behind AMD GPP root ports with ACSCtl 0x001d.
    t = "acs-amd-gpp"
    shutil.rmtree(os.path.join(HERE, t), ignore_errors=True)
    node_files(t, "BOOT_IMAGE=/vmlinuz root=/dev/nvme0n1p2 ro quiet", False, "0::/init.scope",
               "550.54.15")
    for root_bus, bus in [("40", "41"), ("60", "61")]:
        rp = f"/sys/devices/pci0000:{root_bus}/0000:{root_bus}:01.1"
        bridge(t, rp, 4, 0x001d, 0x001d)
        gpu(t, f"0000:{bus}:00.0", f"{rp}/0000:{bus}:00.0", None, None, "16.0 GT/s PCIe")

    # acs-plx-switch: HeyMeco/Rockchip-pcie-devices#6, PEX 8725 downstream port 0000:02:08.0
    # (ACSCap 0x007f, ACSCtl 0x001d), a GPU put on its secondary bus 0x82.
    t = "acs-plx-switch"
    shutil.rmtree(os.path.join(HERE, t), ignore_errors=True)
    node_files(t, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro", False, "0::/init.scope", "550.54.15")
    rp = "/sys/devices/pci0000:00/0000:00:01.0"
    up = rp + "/0000:01:00.0"
    down = up + "/0000:02:08.0"
    bridge(t, rp, 4)
    bridge(t, up, 5)
    bridge(t, down, 6, 0x007f, 0x001d)
    gpu(t, "0000:82:00.0", down + "/0000:82:00.0", None, 256 << 20, "8.0 GT/s PCIe")

    # acs-plx-unprivileged: acs-plx-switch as a user who is not root reads it: every config file
    # cut to its first 64 bytes.
    t2 = "acs-plx-unprivileged"
    shutil.rmtree(os.path.join(HERE, t2), ignore_errors=True)
    shutil.copytree(os.path.join(HERE, t), os.path.join(HERE, t2), symlinks=True)
    for p in [rp, up, down]:
        put(t2, p + "/config", config_space(4, size=4096)[:64])

    # acs-off-switch: NVIDIA/nccl#1405, every ACSCtl SrcValid- ... DirectTrans- (0x0000); a
    # PCIe switch with two GPUs below it.
    t = "acs-off-switch"
    shutil.rmtree(os.path.join(HERE, t), ignore_errors=True)
    node_files(t, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro", False, "0::/init.scope", "550.54.15")
    up = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
    bridge(t, "/sys/devices/pci0000:00/0000:00:01.0", 4, 0x001f, 0x0000)
    bridge(t, up, 5, 0x001f, 0x0000)
    for port, bus in [("00", "03"), ("08", "04")]:
        down = f"{up}/0000:02:{port}.0"
        bridge(t, down, 6, 0x001f, 0x0000)
        gpu(t, f"0000:{bus}:00.0", f"{down}/0000:{bus}:00.0", None, None, "8.0 GT/s PCIe")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "capture":
        capture(sys.argv[2])
    elif len(sys.argv) == 2 and sys.argv[1] == "derived":
        derived()
    else:
        sys.exit(__doc__)
