# Finishes a page written by swift-argument-parser's generate-manual (scripts/package.sh):
# - a subcommand's page is named as git names its pages, migrationkit-migrate: the NAME
#   line whatis and apropos index (they cannot parse a quoted "migrationkit migrate"),
#   the title and the SEE ALSO references; the synopsis keeps the command as typed;
# - blank lines, which groff warns about in mdoc, become paragraph breaks.
/^\.(Dt|Xr) / { gsub(/\./, "-", $2); print; next }
/^\.Sh / { section = $2 }
/^\.Nm "/ && section == "NAME" {
    command = substr($0, 5); gsub(/"/, "", command)
    name = command; gsub(/ /, "-", name)
    print ".Nm " name; next
}
/^\.Nm$/ && command != "" { print ".Nm \"" command "\""; next }
/^$/ { print ".Pp"; next }
{ print }
