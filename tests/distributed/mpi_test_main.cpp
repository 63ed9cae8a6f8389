// GoogleTest under MPI: every rank runs every test (each test is collective), and the
// process exits non-zero where any of its tests failed, so mpirun fails the run.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  // A rank whose test failed may have left the others behind it in no collective: every
  // test body ends with the ranks together, so agreeing on the result cannot hang.
  int any_failed = failed;
  MPI_Allreduce(MPI_IN_PLACE, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any_failed != 0 ? 1 : 0;
}
