// SPDX-License-Identifier: GPL-2.0-only
/*
 * MPI all-reduce and all-to-all, every result checked: what a collective
 * library's traffic over mroce looks like from MPI (Open MPI over UCX).
 * For each size, a few warm-up rounds then timed ones; rank 0 prints one
 * line per operation and size.  Exits 1 on the first wrong element.
 *   mpirun -n 2 ... mroce-mpi-collectives [MAX_BYTES]
 * (tests/vm/mpi.sh runs it between two VMs, one rank on each)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARMUP 3

static int rank, nranks;

static void fail(const char *op, size_t bytes, size_t i, double got, double want)
{
	fprintf(stderr, "rank %d: %s of %zu bytes: element %zu is %.17g, want %.17g\n",
		rank, op, bytes, i, got, want);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/*
 * Element i of rank r's contribution in round k: distinct fields (i below
 * 2^28, k below 2^8, r below 2^8), so an element from another place or
 * round never passes for this one; sums of a few stay exact in a double.
 */
static double elem(int r, size_t i, int k)
{
	return (double)(((uint64_t)r << 40) | ((uint64_t)k << 28) | i);
}

/* One all-reduce of @count doubles in round @k, its sums checked. */
static void allreduce(size_t count, int k, double *in, double *out)
{
	size_t i;
	int r;

	for (i = 0; i < count; i++)
		in[i] = elem(rank, i, k);
	MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < count; i++) {
		double want = 0;

		for (r = 0; r < nranks; r++)
			want += elem(r, i, k);
		if (out[i] != want)
			fail("MPI_Allreduce", count * sizeof(double), i, out[i], want);
	}
}

/* Block d of rank r's send buffer goes to rank d; element j of it: */
static double a2a_elem(int from, int to, size_t j, int k)
{
	return (double)(((uint64_t)from << 44) | ((uint64_t)to << 36) |
			((uint64_t)k << 28) | j);
}

/* One all-to-all of @per doubles to each rank in round @k, checked. */
static void alltoall(size_t per, int k, double *in, double *out)
{
	size_t j;
	int d;

	for (d = 0; d < nranks; d++)
		for (j = 0; j < per; j++)
			in[d * per + j] = a2a_elem(rank, d, j, k);
	MPI_Alltoall(in, (int)per, MPI_DOUBLE, out, (int)per, MPI_DOUBLE,
		     MPI_COMM_WORLD);
	for (d = 0; d < nranks; d++)
		for (j = 0; j < per; j++) {
			double want = a2a_elem(d, rank, j, k);

			if (out[d * per + j] != want)
				fail("MPI_Alltoall", per * sizeof(double),
				     d * per + j, out[d * per + j], want);
		}
}

/* Seconds @rounds rounds of @op take, after WARMUP untimed ones. */
static double timed(void (*op)(size_t n, int k, double *in, double *out),
		    size_t n, int rounds, double *in, double *out)
{
	double t0 = 0;
	int k;

	for (k = 0; k < WARMUP + rounds; k++) {
		if (k == WARMUP) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		op(n, k, in, out);
	}
	return MPI_Wtime() - t0;
}

static void report(const char *op, size_t bytes, int rounds, double secs)
{
	double us = secs * 1e6 / rounds;

	if (rank == 0)
		printf("%-14s %9zu bytes %5d rounds %10.1f us/round %8.2f MB/s\n",
		       op, bytes, rounds, us, bytes / us);
}

int main(int argc, char **argv)
{
	size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : 1 << 22;
	size_t bytes, count;
	double *in, *out;
	int rounds;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (max < sizeof(double))
		max = sizeof(double);
	count = max / sizeof(double);
	if (count >= 1U << 28 || nranks > 255) {	/* elem()'s fields */
		if (rank == 0)
			fprintf(stderr, "at most 2 GiB and 255 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	in = malloc(count * nranks * sizeof(double));
	out = malloc(count * nranks * sizeof(double));
	if (!in || !out) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (bytes = sizeof(double); bytes <= max; bytes *= 8) {
		rounds = bytes <= 65536 ? 50 : 10;
		count = bytes / sizeof(double);
		report("MPI_Allreduce", bytes, rounds,
		       timed(allreduce, count, rounds, in, out));
		report("MPI_Alltoall", bytes, rounds,
		       timed(alltoall, count, rounds, in, out));
	}
	if (rank == 0)
		printf("all results checked on %d ranks\n", nranks);
	free(in);
	free(out);
	MPI_Finalize();
	return 0;
}
