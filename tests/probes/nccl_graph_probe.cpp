// Cross-check for peerbench's CUDA-graph timing of small all-reduces, timed the way nccl-tests
// times `-G`: capture `iters` ncclAllReduce calls into one graph, barrier, start a host clock,
// launch the graph `launches` times, synchronize, stop the clock; time per operation = elapsed /
// (iters x launches). Not peerbench code: an independent second measurement of the same thing.
//
//   mpirun -np 2 nccl_graph_probe [bytes=8] [iters=200] [launches=100] [repeats=5]
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpu/check.h"
#include "gpu/cuda_raii.h"

using namespace peerbench::gpu;

namespace {

struct Args {
  std::size_t bytes = 8;
  int iters = 200;
  int launches = 100;
  int repeats = 5;
};

Args parse(int argc, char** argv) {
  Args a;
  if (argc > 1) a.bytes = std::strtoull(argv[1], nullptr, 10);
  if (argc > 2) a.iters = std::atoi(argv[2]);
  if (argc > 3) a.launches = std::atoi(argv[3]);
  if (argc > 4) a.repeats = std::atoi(argv[4]);
  return a;
}

ncclComm_t make_comm(int rank, int size) {
  ncclUniqueId id{};
  if (rank == 0) PB_NCCL(ncclGetUniqueId(&id));
  PB_MPI(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD));
  ncclComm_t comm = nullptr;
  PB_NCCL(ncclCommInitRank(&comm, size, id, rank));  // blocking communicator
  return comm;
}

double time_launches(const GraphExec& graph, cudaStream_t s, const Args& a) {
  PB_MPI(MPI_Barrier(MPI_COMM_WORLD));
  const auto t0 = std::chrono::steady_clock::now();
  for (int l = 0; l < a.launches; ++l) graph.launch(s);
  PB_CUDA(cudaStreamSynchronize(s));
  const double s_elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double slowest = s_elapsed;
  PB_MPI(MPI_Allreduce(&s_elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  return slowest * 1e6 / (static_cast<double>(a.iters) * a.launches);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, local = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (const char* l = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")) local = std::atoi(l);
  const Args a = parse(argc, argv);
  int rc = 0;
  try {
    int gpus = 0;
    PB_CUDA(cudaGetDeviceCount(&gpus));
    PB_CUDA(cudaSetDevice(local % gpus));
    ncclComm_t comm = make_comm(rank, size);
    {  // the graph (which holds NCCL resources) goes before the communicator
      auto stream = Stream::create();
      auto buf = DeviceBuffer::allocate(std::max<std::size_t>(a.bytes, 256));
      PB_CUDA(cudaMemset(buf.get(), 0x3c, std::max<std::size_t>(a.bytes, 256)));
      const std::size_t n = a.bytes / sizeof(float);
      for (int w = 0; w < 5; ++w) {  // warm-up outside the graph
        PB_NCCL(ncclAllReduce(buf.get(), buf.get(), n, ncclFloat, ncclSum, comm, stream.get()));
      }
      PB_CUDA(cudaStreamSynchronize(stream.get()));
      PB_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < a.iters; ++i) {
        PB_NCCL(ncclAllReduce(buf.get(), buf.get(), n, ncclFloat, ncclSum, comm, stream.get()));
      }
      GraphExec graph = GraphExec::end_capture(stream.get());
      (void)time_launches(graph, stream.get(), Args{a.bytes, a.iters, 1, 1});  // warm the graph
      std::vector<double> us;
      for (int r = 0; r < a.repeats; ++r) us.push_back(time_launches(graph, stream.get(), a));
      std::vector<double> sorted = us;
      std::sort(sorted.begin(), sorted.end());
      if (rank == 0) {
        std::printf("probe all-reduce %zu B, %d ranks, -n %d -G %d: median %.3f us (", a.bytes,
                    size, a.iters, a.launches, sorted[sorted.size() / 2]);
        for (std::size_t i = 0; i < us.size(); ++i) std::printf("%s%.3f", i ? " " : "", us[i]);
        std::printf(")\n");
      }
      PB_CUDA(cudaStreamSynchronize(stream.get()));
    }
    PB_NCCL(ncclCommDestroy(comm));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nccl_graph_probe: rank %d: %s\n", rank, e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
