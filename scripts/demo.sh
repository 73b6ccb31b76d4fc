#!/bin/sh
# The README's demo command (`make demo`): upgrades a copy of an encrypted database
# that release 2 of a bookshelf app left behind (Examples/bookshelf.db, keyed with
# Keys/demo.key, in SQLCipher 3's format as an app of that time wrote it) to the latest
# migrations in Examples/Migrations — status before and after, verification — then
# moves it to SQLCipher 4's format with cipher-upgrade, reads it back with the
# sqlcipher shell, and shows that the file is unreadable without the key.
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
. ./scripts/swift-env.sh
# Git does not keep file modes; a key file must not be readable by others.
chmod 600 Keys/demo.key

echo "== Building migrationkit"
swift build --product migrationkit 2>&1 | grep -v "prohibited flag" | tail -1
migrationkit="$(swift build --show-bin-path)/migrationkit"

workdir=$(mktemp -d "${TMPDIR:-/tmp}/migrationkit-demo.XXXXXX")
trap 'rm -rf "$workdir"' EXIT
database="$workdir/bookshelf.db"
cp Examples/bookshelf.db "$database"
chmod 600 "$database"
run() {
    echo
    echo "\$ migrationkit $*"
    "$migrationkit" "$@" --db-path "$database" --password-file Keys/demo.key --migrations Examples/Migrations
}

run status
run lint
run migrate
run status
run verify --require-index books:books_authorId --require-index books:books_genreId

library=$("$migrationkit" status --json --db-path "$workdir/none.db" --migrations Examples/Migrations | sed -n 's/.*"sqlcipherVersion" : "\([0-9]*\).*/\1/p')
if [ "$library" -ge 4 ]; then
    echo
    echo "== SQLCipher 3's format to SQLCipher 4's, proven before it replaces the file"
    run cipher-upgrade
else
    echo
    echo "== (cipher-upgrade needs SQLCipher 4; this build links SQLCipher $library)"
fi

echo
echo "== The data, read through the new schema with the sqlcipher shell and the demo key"
passphrase=$(cat Keys/demo.key)
printf ".output /dev/null\nPRAGMA key = '%s';\n.output\n.headers on\n.mode column\n.width 28 16 6\nSELECT books.title, genres.name AS genre, books.publishedYear AS year FROM books LEFT JOIN genres ON genres.id = books.genreId ORDER BY books.id;\n" "$passphrase" \
    | sqlcipher -batch "$database"

if [ "$library" -ge 4 ]; then
    modern="$workdir/notes.db"
    echo
    echo "== A modern SQLite app's migrations (STRICT, FTS5, DROP COLUMN, JSON) on a new encrypted database"
    echo "\$ migrationkit migrate --migrations Examples/ModernMigrations"
    "$migrationkit" migrate --db-path "$modern" --password-file Keys/demo.key --migrations Examples/ModernMigrations
    echo
    echo "\$ migrationkit check --migrations Examples/ModernMigrations"
    "$migrationkit" check --migrations Examples/ModernMigrations
    echo
    echo "\$ migrationkit lint --migrations Examples/ModernMigrations --min-sqlite 3.15.2   # would they run on Debian 12's SQLCipher 3.4.1?"
    "$migrationkit" lint --migrations Examples/ModernMigrations --min-sqlite 3.15.2 | grep -v "^  fix:" || true
fi

echo
echo "== Without the right key the file is noise"
printf "First 16 bytes: "
head -c 16 "$database" | od -An -tx1 | tr -s ' '
if printf ".output /dev/null\nPRAGMA key = 'not the demo key';\n.output\nSELECT count(*) FROM books;\n" | sqlcipher -batch "$database" >/dev/null 2>&1; then
    echo "unexpected: the wrong key read the database" >&2
    exit 1
fi
echo "(the sqlcipher shell with a wrong key cannot read it)"
