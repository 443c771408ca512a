#!/usr/bin/env bash
# Fails when a C file in the tree is not formatted per .clang-format.
set -u
fmt=$1 src=$2
cd "$src" || exit 1
bad=0
while IFS= read -r f; do
	if ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then
		echo "not clang-formatted: $f (run: $fmt -i $f)"
		bad=1
	fi
done < <(git ls-files --cached --others --exclude-standard '*.c' '*.h' 2>/dev/null || find daemon include tests -name '*.[ch]')
[ $bad -eq 0 ] && echo "clang-format: all files formatted"
exit $bad
