# report --cgroups against the kernel's io.stat, in Debian's kernels (6.1
# and 6.12; 5.10 with KERNELS=5.10) with cgroup v2's io and memory
# controllers (scenarios/cgroups.sh):
# for every cgroup and hot-added disk io.stat counted, blkmap's bytes are
# the kernel's and its I/Os (bios and the pieces the block layer split them
# into) within 2 % of rios and wios; that holds for the
# task moved while it forked writers (its children's I/O in web and in db),
# for /x removed and made again (/x#1 and /x#2 apart), and for /wb's
# buffered writes, which the kernel's flusher wrote back (basis writeback).
# --top --cgroup=/db sums to db's io.stat.
. "$(dirname "$0")/lib.sh"

# row OUT CGROUP#N DEV: blkmap's "read_bytes write_bytes reads writes basis" of it, or "none".
row() {
	awk -F, -v cg="$2" -v d="$3" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["cgroup_incarnation"] == cg && $k["dev"] == d {
			print $k["read_bytes"], $k["write_bytes"], $k["reads"], $k["writes"],
			      $k["cgroup_basis"]; n++ }
		END { if (!n) print "none" }' "$1/cgroups.csv"
}
# near A B: A within 2 % of B.
near() { [ $((100 * ($1 - $2))) -le $((2 * $2)) ] && [ $((100 * ($2 - $1))) -le $((2 * $2)) ]; }

for kernel in $lanes; do
	[ "$kernel" != 5.10 ] || [ -n "${KERNELS:-}" ] || { note "5.10: left to KERNELS=5.10"; continue; }
	out=$T/$kernel
	in_vm "$kernel" cgroups "$out"
	"$BLKMAP" report --cgroups -f csv "$out/rec.dat" >"$out/cgroups.csv" 2>"$out/report.err" ||
		{ cat "$out/report.err"; fail "$kernel: report --cgroups failed"; }
	grep -q "lost 0 " "$out/record.err" || { cat "$out/record.err"; fail "$kernel: events were lost"; }
	devs=$(awk '{ print $3 }' "$out/disks")
	checked=0
	while read -r cg dev stats; do
		case " $(echo $devs) " in *" $dev "*) ;; *) continue ;; esac
		set -- $(echo "$stats" | tr ' ' '\n' | awk -F= '{ v[$1] = $2 }
			END { print v["rbytes"] + 0, v["wbytes"] + 0, v["rios"] + 0, v["wios"] + 0 }')
		k_rb=$1 k_wb=$2 k_r=$3 k_w=$4
		[ $((k_rb + k_wb)) -gt 0 ] || continue
		set -- $(row "$out" "$cg" "$dev")
		[ "$1" != none ] || { cat "$out/cgroups.csv"; fail "$kernel: no row of $cg on $dev (io.stat: $stats)"; }
		[ "$1" = "$k_rb" ] && [ "$2" = "$k_wb" ] ||
			fail "$kernel: $cg on $dev: blkmap read $1 and wrote $2 bytes, io.stat $k_rb and $k_wb"
		near "$3" "$k_r" && near "$4" "$k_w" ||
			fail "$kernel: $cg on $dev: blkmap's I/Os $3 and $4, io.stat's rios $k_r and wios $k_w"
		note "$kernel: $cg on $dev: $k_rb bytes read, $k_wb written as io.stat says ($5); I/Os $3 and $4, io.stat $k_r and $k_w"
		eval "basis_$(echo "$cg" | tr -c 'a-z0-9\n' _)=\$5"
		checked=$((checked + 1))
	done <"$out/iostat"
	# The premises: each cgroup did I/O where the scenario made it.
	b=$(awk '$1 == "b" { print $3 }' "$out/disks") c=$(awk '$1 == "c" { print $3 }' "$out/disks")
	for want in "/web#1 $b" "/db#1 $b" "/x#1 $(awk '$1 == "a" { print $3 }' "$out/disks")" \
		    "/x#2 $(awk '$1 == "a" { print $3 }' "$out/disks")" "/wb#1 $c"; do
		set -- $want
		grep -q "^$1 $2 .*wbytes=[1-9]" "$out/iostat" ||
			fail "$kernel: premise missing: io.stat has no writes of $1 on $2: $(cat "$out/iostat")"
	done
	case $basis__wb_1 in
	writeback|task+writeback) ;;
	*) fail "$kernel: /wb's writes have basis '$basis__wb_1': not the flusher's writeback" ;;
	esac
	# --top --cgroup=/db: its rows add up to db's io.stat on each disk.
	"$BLKMAP" report --top --cgroup=/db -f csv "$out/rec.dat" >"$out/top-db.csv" 2>/dev/null ||
		fail "$kernel: report --top --cgroup=/db failed"
	for dev in $devs; do
		want=$(awk -v d="$dev" '$1 == "/db#1" && $2 == d { for (i = 3; i <= NF; i++)
			{ split($i, kv, "="); v[kv[1]] = kv[2] } print v["rbytes"] + v["wbytes"] }' "$out/iostat")
		got=$(awk -F, -v d="$dev" 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
			$k["dev"] == d { s += $k["read_bytes"] + $k["write_bytes"] } END { print s + 0 }' \
			"$out/top-db.csv")
		[ "${want:-0}" = "$got" ] || fail "$kernel: --top --cgroup=/db on $dev: $got bytes, io.stat ${want:-0}"
	done
	note "$kernel: $checked cgroup and disk pairs as io.stat counted them"
done
