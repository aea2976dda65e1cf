# Installs peerbench as a tool, and packages it (included by the top CMakeLists.txt when the
# executable is built):
#   bin/peerbench
#   libexec/peerbench/          report.sh, fleet_bundle.sh, plot.py, plot_fleet.py and what they
#                               share (they find ../../bin/peerbench; PEERBENCH overrides)
#   share/doc/peerbench/        README.md, docs/*.md (the user guide), results/SCHEMA.md (the
#                               results format): the source tree's layout, so their links between
#                               each other work in an installed tree too
#   share/man/man1/peerbench.1  generated at build time from the binary's --help texts
#   share/bash-completion/completions/peerbench
# `cmake --install build --prefix DIR` gives a working tree; `cpack -G DEB` in the build folder
# makes a Debian package of the same files under /usr.
include(GNUInstallDirs)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# The man page says what the binary says: cmake/man_page.py runs `peerbench --help`, each
# `peerbench COMMAND --help` and `--list-methods` after every build of the binary.
set(PEERBENCH_MAN_PAGE ${CMAKE_BINARY_DIR}/peerbench.1)
add_custom_command(OUTPUT ${PEERBENCH_MAN_PAGE}
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/cmake/man_page.py $<TARGET_FILE:peerbench>
          ${PEERBENCH_MAN_PAGE} ${PROJECT_VERSION}
  DEPENDS peerbench ${CMAKE_SOURCE_DIR}/cmake/man_page.py
  COMMENT "Writing the man page peerbench.1 from peerbench's --help texts"
  VERBATIM)
add_custom_target(peerbench_man_page ALL DEPENDS ${PEERBENCH_MAN_PAGE})

# The installed binary finds CUDA, NCCL and MPI where the build linked them when they are outside
# the system's library folders (a CUDA runfile install in /usr/local/cuda, say): the same
# libraries as build/peerbench, with no LD_LIBRARY_PATH.
set_target_properties(peerbench PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)
install(TARGETS peerbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
set(PEERBENCH_INSTALL_SCRIPTS ${CMAKE_INSTALL_LIBEXECDIR}/peerbench)
install(PROGRAMS scripts/report.sh scripts/fleet_bundle.sh scripts/plot.py scripts/plot_fleet.py
        DESTINATION ${PEERBENCH_INSTALL_SCRIPTS})
install(FILES scripts/cli.sh scripts/output_files.py DESTINATION ${PEERBENCH_INSTALL_SCRIPTS})
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Every page of the guide, as found at install time (a new page needs no line here).
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
install(FILES results/SCHEMA.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/results)
install(FILES ${PEERBENCH_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES scripts/completion.bash
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME peerbench)

# ---- Debian package: cpack -G DEB (in the build folder) ----
# Dependencies from Debian's archive are computed from the binary by dpkg-shlibdeps (libc,
# libstdc++, Open MPI's libmpi as the build machine's release names it), plus openmpi-bin for
# mpirun, which peerbench starts itself under. CUDA's runtime and NCCL are NVIDIA's packages
# (from NVIDIA's CUDA repository; Debian's non-free archive names the runtime libcudartNN): they
# are declared as below, and left out of dpkg-shlibdeps' search, which knows only packages
# installed here (CUDA may come from a runfile). The driver is only suggested: report, compare
# and fleet need no GPU.
string(REGEX MATCH "^[0-9]+\\.[0-9]+" _nccl_major_minor "${NCCL_VERSION}")
set(PEERBENCH_DEB_GPU_DEPENDS
    "libnccl2 (>= ${_nccl_major_minor}), cuda-cudart-${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR} | libcudart${CUDAToolkit_VERSION_MAJOR}"
    CACHE STRING "The .deb's dependencies on NVIDIA's CUDA runtime and NCCL packages")
# cpack runs the "preinstall" target, which by default builds "all" first: the install test
# (ctest install_end_to_end) then relinked peerbench under the tests running beside it whenever
# the tree had moved on (a commit changes the revision compiled in), and they failed at random
# ("could not execute", crashes). Packaging and installing take the build as it is: build first
# (README: Installing).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(CPACK_PACKAGE_NAME peerbench)
set(CPACK_PACKAGE_VENDOR "peerbench")
set(CPACK_PACKAGE_CONTACT "peerbench maintainers <peerbench@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "what GPU-to-GPU links really deliver, and where traffic takes a slow road")
set(CPACK_PACKAGE_DESCRIPTION
    "peerbench measures every pair of GPUs of a node (copy engines, SM loads and stores, NCCL) and each GPU's host link, records NCCL's transport, checks the data, writes versioned JSON and gives a verdict per pair; report, compare and fleet read the results anywhere.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
get_filename_component(_nccl_lib_dir "${NCCL_LIBRARY}" DIRECTORY)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR} ${_nccl_lib_dir})
set(CPACK_DEBIAN_PACKAGE_DEPENDS "openmpi-bin, ${PEERBENCH_DEB_GPU_DEPENDS}")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-matplotlib")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cuda-drivers | nvidia-driver, slurm-client")
set(CPACK_STRIP_FILES TRUE)
set(CPACK_GENERATOR DEB)
include(CPack)
