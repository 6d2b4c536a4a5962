#!/bin/sh
# lib/'s folders depend one way: util < tracefile < sources < record, and
# sources < map < analyse < report (record and map know nothing of each
# other). No file of lib/<folder> and no header of include/blkmap/<folder>
# includes a blkmap header of a folder later in that flow, or of one that
# is not in it.
. "$(dirname "$0")/lib.sh"

# below FOLDER: the folders FOLDER's files may include.
below() {
	case $1 in
	util) echo "util" ;;
	tracefile) echo "util tracefile" ;;
	sources) echo "util tracefile sources" ;;
	record) echo "util tracefile sources record" ;;
	map) echo "util tracefile sources map" ;;
	analyse) echo "util tracefile sources map analyse" ;;
	report) echo "util tracefile sources map analyse report" ;;
	*) echo "" ;;
	esac
}

status=0 checked=0
for file in "$top"/lib/*/*.[ch] "$top"/include/blkmap/*/*.h; do
	rel=${file#"$top"/}
	folder=${rel#lib/}
	folder=${folder#include/blkmap/}
	folder=${folder%%/*}
	allowed=$(below "$folder")
	[ -n "$allowed" ] || { echo "$rel: folder '$folder' is not in the flow"; status=1; continue; }
	checked=$((checked + 1))
	for used in $(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"blkmap/\([^/"]*\)/.*|\1|p' "$file" | sort -u); do
		case " $allowed " in
		*" $used "*) ;;
		*) echo "$rel includes blkmap/$used/: against the flow ($folder may use $allowed)"
		   status=1 ;;
		esac
	done
	# A path that climbs out of the folder would hide the same thing.
	if grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\.\./' "$file"; then
		echo "$rel includes by a relative path out of its folder"
		status=1
	fi
done
[ "$checked" -gt 100 ] || fail "only $checked files checked: is the tree there?"
exit $status
