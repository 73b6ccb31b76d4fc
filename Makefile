# The two commands a new user needs (see README.md):
#   make demo   migrates an encrypted demo database, end to end
#   make test   installs what is missing, builds, and runs every test
.PHONY: demo test bench build deps clean

demo:
	./scripts/demo.sh

test:
	./scripts/test.sh

# Release-mode benchmarks against the sqlcipher shell (Benchmarks/README.md).
bench:
	./Benchmarks/run.sh

build: deps
	. ./scripts/swift-env.sh && swift build

deps:
	./scripts/install-deps.sh

clean:
	rm -rf .build
