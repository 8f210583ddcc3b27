# hybridkit: the two commands of the quick start, and their parts.
#   make run     set up (apt packages as root on Debian, else a check; .venv), build (Release and SMPI), run the main job
#   make test    set up, build, ctest (all labels) + pytest
# HK_MPI=auto (the default) builds with the MPI of the mpicc on PATH (none: Open MPI, which
# setup installs as root on Debian); HK_MPI=openmpi (build/release) or mpich
# (build/mpich-release) selects Debian's. PRESET=debug|repro (or mpich-debug ...) selects
# another CMake preset. HK_TEST_SUBSET=quick: make test runs a quick subset (see test:).

PYTHON ?= python3
HK_MPI ?= auto
# auto: python/src/hybridkit/launch/mpivendor.py (stdlib only, run before the venv exists)
# preprocesses mpi.h with that mpicc and reads the vendor's macros (why that probe: its
# docstring); it prints "HK_MPI preset vendor mpicc launcher". Open MPI -> release; MPICH,
# MVAPICH, Intel MPI (MPICH-derived) -> mpich-release; Cray MPICH and unknown MPIs ->
# release; the wrapper and launcher found are passed to CMake unless they are the preset's
# own Debian wrapper. HK_MPI is exported resolved, so sub-makes and the CLI do not probe
# again and the choice is printed once.
ifeq ($(HK_MPI),auto)
hk_auto := $(or $(shell $(PYTHON) python/src/hybridkit/launch/mpivendor.py --make 2>/dev/null),openmpi release none - -)
override HK_MPI := $(word 1,$(hk_auto))
PRESET ?= $(word 2,$(hk_auto))
ifneq ($(word 4,$(hk_auto)),-)
HK_MPICC ?= $(word 4,$(hk_auto))
HK_MPIEXEC ?= $(filter-out -,$(word 5,$(hk_auto)))
endif
hk_auto_what := $(if $(filter none,$(word 3,$(hk_auto))),Open MPI (no mpicc on PATH; make setup installs it as root),$(word 3,$(hk_auto)) ($(or $(HK_MPICC),$(shell command -v mpicc))))
$(info HK_MPI=auto: using $(hk_auto_what); HK_MPI=$(HK_MPI), build/$(PRESET))
endif
ifeq ($(HK_MPI),mpich)
PRESET ?= mpich-release
else ifeq ($(HK_MPI),openmpi)
PRESET ?= release
else ifeq ($(HK_MPI),intelmpi)
PRESET ?= mpich-release
else ifeq ($(HK_MPI),cray-mpich)
PRESET ?= release
else
$(error HK_MPI must be auto, openmpi, mpich (or what auto finds: intelmpi, cray-mpich), not '$(HK_MPI)')
endif
BUILD_DIR := build/$(PRESET)
# The presets name Debian's wrappers (mpicc.openmpi, mpicc.mpich). Where there is none (a
# cluster's MPI module, another distribution) the plain mpicc and mpirun/mpiexec on PATH are
# used (tools/setup-deps.sh checks they are this MPI's); HK_MPICC and HK_MPIEXEC override.
# Intel MPI and Cray MPICH have no Debian wrapper: their mpicc (Cray: cc) and mpiexec (srun).
# Evaluated when configuring, after deps.
ifeq ($(HK_MPI),mpich)
HK_MPICC ?= $(if $(shell command -v mpicc.mpich),,$(shell command -v mpicc))
HK_MPIEXEC ?= $(if $(HK_MPICC),$(shell command -v mpiexec))
else ifeq ($(HK_MPI),openmpi)
HK_MPICC ?= $(if $(shell command -v mpicc.openmpi),,$(shell command -v mpicc))
HK_MPIEXEC ?= $(if $(HK_MPICC),$(shell command -v mpirun))
else ifeq ($(HK_MPI),intelmpi)
HK_MPICC ?= $(shell command -v mpicc)
HK_MPIEXEC ?= $(shell command -v mpiexec)
else
HK_MPICC ?= $(or $(shell command -v mpicc),$(shell command -v cc))
HK_MPIEXEC ?= $(shell command -v srun)
endif
CMAKE_MPI = $(if $(HK_MPICC),-DMPI_C_COMPILER=$(HK_MPICC) -DMPIEXEC_EXECUTABLE=$(HK_MPIEXEC))
VENV := .venv
PY := $(VENV)/bin/python
JOBS ?= 2
export HK_MPI
export HK_BIN_DIR := $(CURDIR)/$(BUILD_DIR)/bin
SMPI_DIR := build/smpi-release
export HK_SMPI_BIN_DIR := $(CURDIR)/$(SMPI_DIR)/bin
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
# PRESET=debug: no leak checking of MPI runs (see tests/CMakeLists.txt)
export ASAN_OPTIONS := detect_leaks=0

.PHONY: run test setup deps venv build build-smpi smpi-build configure clean help fresh-check docs print-mpi

help:
	@echo "make run | make test | make build | make setup | make clean | make fresh-check | make docs | make print-mpi   (HK_MPI=auto|openmpi|mpich, PRESET=..., HK_TEST_SUBSET=quick)"

# what HK_MPI resolved to and what configure would pass to CMake (checked by test_mpivendor.py)
print-mpi:
	@echo "HK_MPI=$(HK_MPI) PRESET=$(PRESET) BUILD_DIR=$(BUILD_DIR) HK_MPICC=$(HK_MPICC) HK_MPIEXEC=$(HK_MPIEXEC)"

# the API reference (Doxygen, from Debian, installed when missing): build/docs/html/index.html
docs:
	@command -v doxygen >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq doxygen)
	doxygen docs/Doxyfile
	@echo "API reference: build/docs/html/index.html"

deps:
	@tools/setup-deps.sh $(HK_MPI)

# the venv is (re)made when missing or when the package description or the pinned
# versions change; python/constraints.txt pins every Python dependency to the versions the
# tests passed with (PIP_CONSTRAINT also holds for the build requirements)
$(VENV)/.installed: python/pyproject.toml python/constraints.txt | deps
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	PIP_CONSTRAINT=$(CURDIR)/python/constraints.txt $(PY) -m pip install -q --disable-pip-version-check -e 'python[test]'
	@touch $@

venv: $(VENV)/.installed

setup: deps venv

$(BUILD_DIR)/CMakeCache.txt: | deps venv
	cmake --preset $(PRESET) $(CMAKE_MPI)

configure: $(BUILD_DIR)/CMakeCache.txt

# HK_TEST_SUBSET=quick: make test builds and runs a quick subset only (about a minute of tests
# after the build of their programs): unit tests of the core, topology, collectives' table and
# Cartesian maps, lint.programs, one 2-rank hybrid Jacobi run, vcluster.nodes2 (needs root: as a
# user it reports a skip), and the pytest files of setup, MPI detection and launch lines. No
# SMPI build. What tests/nonroot.cmake runs as nobody. Unset: everything.
QUICK_CTEST := ^(unit\.(core|topo|beff|coll_table|cart)|lint\.programs|jacobi\.3d\.pure\.np2\.t2|vcluster\.nodes2)$$
QUICK_TARGETS := test_core test_topo test_beff test_coll_table test_cart_unit hk-jacobi
QUICK_PYTEST := python/tests/test_setup_deps.py python/tests/test_mpivendor.py \
	python/tests/test_launch.py python/tests/test_launch_vendors.py
ifeq ($(HK_TEST_SUBSET),quick)
TEST_NEEDS := build
BUILD_TARGETS := --target $(QUICK_TARGETS)
CTEST_ARGS := -R '$(QUICK_CTEST)'
PYTEST_ARGS := $(QUICK_PYTEST)
else ifeq ($(HK_TEST_SUBSET),)
TEST_NEEDS := build build-smpi
PYTEST_ARGS := python/tests
else
$(error HK_TEST_SUBSET must be quick or unset, not '$(HK_TEST_SUBSET)')
endif

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) $(BUILD_TARGETS)

# hk-bench, hk-jacobi and hk-mz for SimGrid SMPI (hybridkit simulate, docs/simulate.md). A failed
# configuration leaves no CMakeCache.txt behind (CMake writes one anyway), so the next make
# configures again instead of failing in the build with "No rule to make target 'Makefile'"
$(SMPI_DIR)/CMakeCache.txt: | deps
	@command -v smpicc >/dev/null || { echo "make: smpicc not found: the SMPI build (hybridkit simulate) needs SimGrid: apt-get install libsimgrid-dev (make deps does)" >&2; exit 1; }
	cmake --preset smpi-release || { rm -f $@; echo "make: configuring $(SMPI_DIR) with smpicc failed (see above)" >&2; exit 1; }

# without SimGrid (not installed by setup-deps: not root, or another distribution) the SMPI
# build is skipped with a note; hybridkit simulate and its tests then skip too
build-smpi: | deps
	@if command -v smpicc >/dev/null; then $(MAKE) --no-print-directory smpi-build; \
	 else echo "make: smpicc not found: the SMPI build is skipped (hybridkit simulate and its tests skip; SimGrid: apt-get install libsimgrid-dev)"; fi

smpi-build: $(SMPI_DIR)/CMakeCache.txt
	cmake --build $(SMPI_DIR) -j $(JOBS) --target hk-bench hk-jacobi hk-mz

test: $(TEST_NEEDS)
	ctest --test-dir $(BUILD_DIR) -j $(JOBS) --output-on-failure $(CTEST_ARGS)
	$(PY) -m pytest $(PYTEST_ARGS) -q -rs

run: build build-smpi
	$(PY) -m hybridkit study --quick

# the quick start on a fresh Debian 12 root (debootstrap + chroot, root only): make test, make run
fresh-check:
	tools/fresh-check.sh

clean:
	rm -rf build
