# Genesis — the two commands of the README, for a fresh machine:
#   make demo   install what is missing, build, learn data/adult_sample.csv with the default
#               method (DDPM; DEMO_EPOCHS passes over the rows), write synthetic rows
#   make test   install what is missing, build (warnings as errors), run every test suite
# Other targets: build, sanitize (tests under ASan+UBSan, then each fuzzing harness for
# SANITIZE_FUZZ_SECONDS), fuzz (the libFuzzer harnesses, FUZZ_SECONDS each; clang),
# install PREFIX=..., bench, clean.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
DEMO_EPOCHS ?= 100
FUZZ_SECONDS ?= 300
SANITIZE_FUZZ_SECONDS ?= 60

.PHONY: demo test build setup sanitize fuzz install bench clean

setup:
	bash scripts/setup.sh

build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/genesis generate -i data/adult_sample.csv -o demo_synthetic.csv -n 2000 \
	    --epochs $(DEMO_EPOCHS) --seed 1 --progress --save demo_model.gen
	$(BUILD)/genesis sample -m demo_model.gen -o demo_more.csv -n 5 --seed 2
	@echo "--- first rows of demo_synthetic.csv ---"; head -n 6 demo_synthetic.csv
	@echo "--- 5 more rows from the saved model (demo_more.csv) ---"; cat demo_more.csv

test: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGENESIS_WERROR=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

sanitize: setup
	cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DGENESIS_SANITIZE=ON -DGENESIS_CUDA=OFF -DGENESIS_CUDA_EMU=ON -DGENESIS_BUILD_BENCH=OFF
	cmake --build build-asan -j $(JOBS)
	cd build-asan && GENESIS_SLOW_TESTS=0 ctest --output-on-failure -j $(JOBS)
	FUZZ_BUILD=build-fuzz bash fuzz/run.sh $(SANITIZE_FUZZ_SECONDS)

# libFuzzer harnesses of the CSV reader, the model-file loader and evaluate's inputs
# (docs/fuzzing.md); needs clang, else says so and skips
fuzz:
	FUZZ_BUILD=build-fuzz bash fuzz/run.sh $(FUZZ_SECONDS)

install: build
	cmake --install $(BUILD) --prefix $(or $(PREFIX),/usr/local)

bench: build
	bash bench/run_cpu.sh

clean:
	rm -rf $(BUILD) build-asan build-fuzz demo_synthetic.csv demo_conditioned.csv demo_model.gen
