# hybridkit: the two commands of the quick start, and their parts.
#   make run     set up (apt packages, .venv), build (Release and SMPI), run the main job
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

.PHONY: run test setup deps venv build build-smpi configure clean help fresh-check docs

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
	cmake --preset $(PRESET)

configure: $(BUILD_DIR)/CMakeCache.txt

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# hk-bench and hk-jacobi for SimGrid SMPI (hybridkit simulate, docs/simulate.md). A failed
# configuration leaves no CMakeCache.txt behind (CMake writes one anyway), so the next make
# configures again instead of failing in the build with "No rule to make target 'Makefile'"
$(SMPI_DIR)/CMakeCache.txt: | deps
	@command -v smpicc >/dev/null || { echo "make: smpicc not found: the SMPI build (hybridkit simulate) needs SimGrid: apt-get install libsimgrid-dev (make deps does)" >&2; exit 1; }
	cmake --preset smpi-release || { rm -f $@; echo "make: configuring $(SMPI_DIR) with smpicc failed (see above)" >&2; exit 1; }

build-smpi: $(SMPI_DIR)/CMakeCache.txt
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
