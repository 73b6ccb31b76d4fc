#!/bin/sh
# Rebuilds Examples/bookshelf.db: the bookshelf app's database as release 2 left it
# (migrations 0001 and 0002 applied), with sample rows, encrypted with Keys/demo.key.
# `make demo` upgrades a copy of it to the latest migrations.
set -eu
cd "$(dirname "$0")/.."
. ./scripts/swift-env.sh
chmod 600 Keys/demo.key
swift build --product migrationkit >/dev/null
migrationkit="$(swift build --show-bin-path)/migrationkit"
workdir=$(mktemp -d)
trap 'rm -rf "$workdir"' EXIT
mkdir "$workdir/Migrations"
cp Examples/Migrations/0001_* Examples/Migrations/0002_* "$workdir/Migrations/"
"$migrationkit" migrate --quiet --db-path "$workdir/bookshelf.db" --password-file Keys/demo.key --migrations "$workdir/Migrations"
passphrase=$(cat Keys/demo.key)
sqlcipher -batch -bail "$workdir/bookshelf.db" <<SQL >/dev/null
PRAGMA key = '$passphrase';
BEGIN;
INSERT INTO authors (id, name) VALUES (1, 'Ursula K. Le Guin'), (2, 'Jane Austen'), (3, 'Frank Herbert'), (4, 'Toni Morrison');
INSERT INTO books (authorId, title, genre, publishedYear) VALUES
    (1, 'A Wizard of Earthsea', 'Fantasy', 1968),
    (1, 'The Left Hand of Darkness', 'Science fiction', 1969),
    (1, 'The Dispossessed', ' Science fiction ', 1974),
    (2, 'Emma', 'Novel', 1815),
    (2, 'Persuasion', 'Novel', 1817),
    (3, 'Dune', 'Science fiction', 1965),
    (4, 'Beloved', 'Novel', 1987),
    (4, 'Playing in the Dark', NULL, 1992);
COMMIT;
SQL
cp "$workdir/bookshelf.db" Examples/bookshelf.db
chmod 600 Examples/bookshelf.db
echo "Wrote Examples/bookshelf.db (release 2, 4 authors, 8 books)."
