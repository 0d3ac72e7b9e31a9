# SPDX-License-Identifier: GPL-2.0-only
#
# mroce: kernel module, rdma-core provider, and their tests.
#   make deps    install the Debian packages everything below needs
#   make         build mroce.ko and the provider (libmroce-rdmav34.so)
#   make check   lint + KUnit + the VM integration suite
#   make check-pyverbs  rdma-core's pyverbs suite on rxe and mroce, compared
#   make check-compliance  the wire-protocol compliance suite: a peer written
#                from the spec against a live device, a line per spec id
#   make fuzz    MROCE_FUZZ_PACKETS (default 1,000,000) mutated packets at a
#                live device beside verified traffic (100,000 in make check)
#   make check-kernels  the VM suites on the other supported kernels (6.12;
#                make check runs their core there)
#   make debug-kernel   build Debian's 6.1 with KASAN, lockdep, kmemleak, ...
#   make check-debug    the VM suites on that kernel; any kernel report fails
#   make soak    two VMs, mroce-verify under impairments, flaps and restarts
#                for MROCE_SOAK_SECS (default 1800)
#   make demo    two VMs: mroce and rxe side by side, lossless and at 1% loss
#   make sim     the fabric simulator's scenarios (64 hosts, 1-8 planes, loss,
#                failures, incast): mroce's protocol core beside a RoCEv2
#                model and the ideal; make sim-check: its small exact runs
#   make install / make uninstall   the module (updates/, depmod) and the
#                userspace unmodified programs need; see scripts/install
# KDIR=<kernel build dir> overrides the kernel the module is built for.
# The module builds out of tree in build/kmod/KVER (scripts/build-module);
# the kbuild entry point is the Kbuild file beside this one.

.PHONY: all module provider verify deps lint kunit vm-test check check-pyverbs check-compliance check-kernels fuzz debug-kernel check-debug soak demo install uninstall dkms-install dkms-uninstall dkms-check vm-shell bench-loss bench-ucx bench-lat bench-qps bench-paths bench-incast bench-profile sim sim-build sim-check clean

all: module provider verify

module:
	scripts/build-module

provider:
	scripts/build-provider

# The end-to-end verification program, linked against the provider's tree.
verify: provider
	$(MAKE) -C tests/verify

deps:
	scripts/setup

lint:
	scripts/lint

kunit:
	scripts/kunit

vm-test: all
	scripts/vm-tests

check:
	scripts/check

check-pyverbs: all
	scripts/vm-tests pyverbs

check-compliance: all
	scripts/vm-tests compliance

check-kernels: all
	scripts/check-kernels

fuzz: all
	scripts/vm-tests fuzz

# Cached in ~/.cache/mroce/debug-kernel (MROCE_CACHE), outside the clone.
debug-kernel:
	scripts/debug-kernel

check-debug: all
	scripts/check-debug

soak: all
	scripts/vm-tests soak

demo:
	scripts/demo

# The simulator builds the module's pure protocol files in userspace
# (tests/sim/Makefile); it needs ns-3 (libns3-dev, installed by make deps).
sim-build:
	$(MAKE) -s -C tests/sim

sim: sim-build
	tests/sim/run

sim-check: sim-build
	tests/sim/check

# Installs what "make" built; builds nothing (run "make" first).
install:
	scripts/install

uninstall:
	scripts/install --uninstall

# DKMS builds the module for every installed kernel, and for new ones.
dkms-install:
	scripts/dkms install

dkms-uninstall:
	scripts/dkms uninstall

dkms-check:
	scripts/dkms check

# Goodput of mroce and rxe side by side under loss (slow: minutes).
bench-loss:
	scripts/bench-loss

# UCX (ucx_perftest) and Open MPI collectives, mroce beside rxe, lossless
# and at 1% loss (minutes).
bench-ucx:
	scripts/bench-ucx

# perftest's latency tests (send busy-polled and event-driven, write and
# read busy-polled), 2 B to 1 MiB, mroce beside rxe (about 15 minutes).
bench-lat:
	scripts/bench-lat

# 1, 16, 256 and 4,000 RC QPs through the RDMA CM: goodput, connect rate,
# kernel memory per QP; mroce beside rxe (about 15 minutes).
bench-qps: verify
	scripts/bench-qps

# Multipath: 1/2/4 shaped links, a lossy link, a black hole, a link down.
bench-paths:
	scripts/bench-paths

# A drop-tail bottleneck: mroce beside rxe and kernel TCP (slow: minutes).
bench-incast:
	scripts/bench-incast

bench-profile:
	scripts/bench-profile

vm-shell: module
	bash -c '. scripts/common.sh && exec scripts/vm shell --module "$$(mroce_module "$$(mroce_kver)")"'

clean:
	bash -c '. scripts/common.sh && mroce_clean_source_tree'
	$(MAKE) -C tests/verify clean
	rm -rf build
