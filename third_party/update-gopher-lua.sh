#!/bin/sh
# Keeps third_party/gopher-lua = an upstream gopher-lua release + the patch
# set third_party/gopher-lua.patch (each hunk explained in PATCHES.md).
#
#   sh third_party/update-gopher-lua.sh diff
#       writes gopher-lua.patch: the copy's changes against the release that
#       go.mod requires (run it after changing the copy);
#   sh third_party/update-gopher-lua.sh apply [vX.Y.Z]
#       replaces the copy with that release (default: go.mod's) and applies
#       the patch to it; with a new version it also updates go.mod's
#       require. A hunk that no longer applies stops the script: port it by
#       hand in the copy, then run `diff`.
#   sh third_party/update-gopher-lua.sh check
#       exits non-zero unless the copy is the release + the patch.
#
# Then: (cd third_party/gopher-lua && go test ./...) and the repository's
# own tests.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$root/third_party/gopher-lua
patchfile=$root/third_party/gopher-lua.patch
mod=github.com/yuin/gopher-lua

# The release go.mod requires (the replace points at the copy).
version=$(awk '$1=="github.com/yuin/gopher-lua" && $2 ~ /^v/ {print $2; exit}' "$root/go.mod")

# upstream VERSION: the release's source folder in the module cache.
upstream() {
	(cd "$root" && GOFLAGS=-mod=mod go mod download -json "$mod@$1") | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

# pristine VERSION OUT: a writable copy of the release in OUT.
pristine() {
	src=$(upstream "$1")
	[ -n "$src" ] || { echo "cannot download $mod@$1" >&2; exit 1; }
	rm -rf "$2"
	cp -R "$src" "$2"
	chmod -R u+w "$2"
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

case "${1:-}" in
diff)
	pristine "$version" "$tmp/a"
	cp -R "$dir" "$tmp/b"
	# No timestamps in the file headers: the patch changes only with the code.
	(cd "$tmp" && diff -ruN a b > "$tmp/patch") || [ $? -eq 1 ]
	sed -E 's/^((---|\+\+\+) [^	]*)	.*/\1/' "$tmp/patch" > "$patchfile"
	echo "wrote $patchfile against $mod $version"
	;;
apply)
	new=${2:-$version}
	pristine "$new" "$tmp/b"
	patch -p1 --no-backup-if-mismatch -d "$tmp/b" < "$patchfile"
	rm -rf "$dir"
	cp -R "$tmp/b" "$dir"
	if [ "$new" != "$version" ]; then
		(cd "$root" && go mod edit -require "$mod@$new")
		echo "go.mod now requires $mod $new; run go mod tidy, then '$0 diff'"
	fi
	echo "$dir is $mod $new with the patch"
	;;
check)
	pristine "$version" "$tmp/b"
	patch -s -p1 --no-backup-if-mismatch -d "$tmp/b" < "$patchfile"
	diff -r "$tmp/b" "$dir" > /dev/null || { echo "$dir differs from $mod $version + gopher-lua.patch" >&2; exit 1; }
	echo "$dir is $mod $version + gopher-lua.patch"
	;;
*)
	echo "usage: $0 diff | apply [version] | check" >&2
	exit 2
	;;
esac
