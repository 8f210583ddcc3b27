# hybridkit: the two commands of the quick start, and their parts.
#   make run     set up (apt packages as root on Debian, else a check; .venv), build (Release and SMPI), run the main job
#   make test    set up, build, ctest (all labels) + pytest
# HK_MPI=mpich selects MPICH (build/mpich-release); the default is Open MPI (build/release).
# PRESET=debug|repro (or mpich-debug ...) selects another CMake preset.

HK_MPI ?= openmpi
ifeq ($(HK_MPI),mpich)
PRESET ?= mpich-release
else ifeq ($(HK_MPI),openmpi)
PRESET ?= release
else
$(error HK_MPI must be openmpi or mpich, not '$(HK_MPI)')
endif
BUILD_DIR := build/$(PRESET)
# The presets name Debian's wrappers (mpicc.openmpi, mpicc.mpich). Where there is none (a
# cluster's MPI module, another distribution) the plain mpicc and mpirun/mpiexec on PATH are
# used (tools/setup-deps.sh checks they are this MPI's); HK_MPICC and HK_MPIEXEC override.
# Evaluated when configuring, after deps.
ifeq ($(HK_MPI),mpich)
HK_MPICC ?= $(if $(shell command -v mpicc.mpich),,$(shell command -v mpicc))
HK_MPIEXEC ?= $(if $(HK_MPICC),$(shell command -v mpiexec))
else
HK_MPICC ?= $(if $(shell command -v mpicc.openmpi),,$(shell command -v mpicc))
HK_MPIEXEC ?= $(if $(HK_MPICC),$(shell command -v mpirun))
endif
CMAKE_MPI = $(if $(HK_MPICC),-DMPI_C_COMPILER=$(HK_MPICC) -DMPIEXEC_EXECUTABLE=$(HK_MPIEXEC))
VENV := .venv
PY := $(VENV)/bin/python
JOBS ?= 2
PYTHON ?= python3
export HK_MPI
export HK_BIN_DIR := $(CURDIR)/$(BUILD_DIR)/bin
SMPI_DIR := build/smpi-release
export HK_SMPI_BIN_DIR := $(CURDIR)/$(SMPI_DIR)/bin
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
# PRESET=debug: no leak checking of MPI runs (see tests/CMakeLists.txt)
export ASAN_OPTIONS := detect_leaks=0

.PHONY: run test setup deps venv build build-smpi smpi-build configure clean help fresh-check docs

help:
	@echo "make run | make test | make build | make setup | make clean | make fresh-check | make docs   (HK_MPI=openmpi|mpich, PRESET=...)"

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

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# hk-bench and hk-jacobi for SimGrid SMPI (hybridkit simulate, docs/simulate.md). A failed
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
	cmake --build $(SMPI_DIR) -j $(JOBS) --target hk-bench hk-jacobi

test: build build-smpi
	ctest --test-dir $(BUILD_DIR) -j $(JOBS) --output-on-failure
	$(PY) -m pytest python/tests -q -rs

run: build build-smpi
	$(PY) -m hybridkit study --quick

# the quick start on a fresh Debian 12 root (debootstrap + chroot, root only): make test, make run
fresh-check:
	tools/fresh-check.sh

clean:
	rm -rf build
