# The two commands a new user needs (see README.md):
#   make demo   migrates an encrypted demo database, end to end
#   make test   installs what is missing, builds, and runs every test
# and the one a contributor runs while working (CONTRIBUTING.md):
#   make check  the default platform, quickly
.PHONY: demo test check soak bench build release install uninstall deb docs deps clean grdb-sqlcipher grdb-example

demo:
	./scripts/demo.sh

test:
	MIGRATIONKIT_TEST_DEPTH=full ./scripts/test.sh

# The inner loop (CONTRIBUTING.md): the default platform only, with the quick share of
# the tests that take minutes, on an incremental build. FILTER=Name runs the tests whose
# names match (swift test --filter).
check:
	MIGRATIONKIT_TEST_DEPTH=quick MIGRATIONKIT_CONFIGURATIONS=sqlcipher4 ./scripts/test.sh $(if $(FILTER),--filter '$(FILTER)')

# Crash safety, many more times than the suite: SIGKILLs migrate, rekey and
# encrypt --in-place at random moments, stops a fleet's key rotation (key files and
# keyring items) by SIGKILL and SIGTERM, and rotates beside a cleaner of new key files,
# and of new keyring items, SIGKILLed at random moments, checking every database and
# key after each fault.
SOAK_KILLS ?= 1000
soak:
	MIGRATIONKIT_SOAK_KILLS=$(SOAK_KILLS) MIGRATIONKIT_CONFIGURATIONS=sqlcipher4 ./scripts/test.sh --filter 'CrashSafetyTests|KeyRotationTests|KeyStoreRotationSoakTests'

# Release-mode benchmarks against the sqlcipher shell (Benchmarks/README.md).
bench:
	./Benchmarks/run.sh

build: deps
	. ./scripts/swift-env.sh && swift build

# The binary to install: release mode, with the Swift runtime and Foundation linked in
# (SQLCipher and libsecret stay shared), which starts each process several ms sooner
# (Benchmarks case 6); the same build make install and make deb use.
release: deps
	@echo "built $$(./scripts/package.sh build)"

# Installs the release binary, a man page per command and bash/zsh/fish completions
# under $(DESTDIR)$(PREFIX); `make uninstall` removes exactly those (scripts/package.sh).
PREFIX ?= /usr/local
DESTDIR ?=
install: deps
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" ./scripts/package.sh install

uninstall:
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" ./scripts/package.sh uninstall

# dist/migrationkit_VERSION_ARCH.deb, for `apt-get install ./dist/…deb`.
deb: deps
	./scripts/package.sh deb

# The library products' DocC documentation, into .build/docs; fails on any DocC warning
# and on any public symbol without a doc comment (scripts/docs.sh).
docs: deps
	./scripts/docs.sh

# Integrations/GRDBSQLCipher: the GRDB integration's package on GRDB 7.10 built on the
# system's SQLCipher (scripts/grdb-sqlcipher.sh), then built with its tests and example,
# the commands taking key options (the GRDBSQLCipher trait).
grdb-sqlcipher: deps
	. ./scripts/swift-env.sh && ./scripts/grdb-sqlcipher.sh Integrations/GRDBSQLCipher && \
	cd Integrations/GRDBSQLCipher && swift build --build-tests --traits GRDBSQLCipher

# The encrypted example app (Examples/GRDBNotes on GRDB built on SQLCipher): builds
# grdb-notes and prints its path; then `grdb-notes migrate --db-path notes.db
# --password-file notes.key` creates an encrypted file.
grdb-example: deps
	@. ./scripts/swift-env.sh && ./scripts/grdb-sqlcipher.sh Integrations/GRDBSQLCipher && \
	cd Integrations/GRDBSQLCipher && swift build --traits GRDBSQLCipher --product grdb-notes && \
	echo "grdb-example: built $$(swift build --traits GRDBSQLCipher --show-bin-path)/grdb-notes (encrypted: give it --password-file, --keychain-service/--keychain-account or MIGRATIONKIT_PASSWORD)"

deps:
	./scripts/install-deps.sh

clean:
	rm -rf .build
