# The Debian packages build, lintian finds nothing to warn about, blkmap
# installs into a scratch root and runs, and DKMS builds the module for a
# Debian kernel, which then records exact boundaries in that kernel.
. "$(dirname "$0")/../live/lib.sh"
need_root
top=$(cd "$(dirname "$0")/../.." && pwd)
command -v dpkg-buildpackage >/dev/null || skip "no dpkg-buildpackage (dpkg-dev)"
command -v dkms >/dev/null || skip "no dkms"

mkdir "$T/src"
if [ -d "$top/.git" ]; then
	git -C "$top" archive HEAD | tar xf - -C "$T/src"
else
	cp -a "$top/." "$T/src"
fi
(cd "$T/src" && dpkg-buildpackage -us -uc -b >"$T/build.log" 2>&1) ||
	{ tail -30 "$T/build.log"; fail "dpkg-buildpackage failed"; }
version=$(cd "$T/src" && dpkg-parsechangelog -S Version)
deb=$T/blkmap_${version}_$(dpkg --print-architecture).deb
dkms_deb=$T/blkmap-dkms_${version}_all.deb
ks_deb=$T/blkmap-kernelshark_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] && [ -f "$dkms_deb" ] && [ -f "$ks_deb" ] || fail "packages missing: $(ls "$T")"
note "built $(basename "$deb"), $(basename "$dkms_deb") and $(basename "$ks_deb")"

if command -v lintian >/dev/null; then
	lintian "$T"/blkmap_*.changes >"$T/lintian" 2>&1 || true
	cat "$T/lintian"
	! grep -q '^[EW]:' "$T/lintian" || fail "lintian has errors or warnings"
fi

dpkg -x "$deb" "$T/root"
"$T/root/usr/bin/blkmap" --version | grep -q "trace.dat version 6" || fail "the packaged blkmap does not run"
"$T/root/usr/bin/blkmap" statedump >/dev/null || fail "the packaged statedump fails"
for page in blkmap.1 blkmap-record.1 blkmap-report.1 blkmap.dat.5; do
	section=${page##*.}
	[ -s "$T/root/usr/share/man/man$section/$page.gz" ] || fail "no $page.gz"
done
[ -s "$T/root/usr/share/bash-completion/completions/blkmap" ] || fail "no bash completion"
dpkg -x "$ks_deb" "$T/ks"
plugin=$(find "$T/ks/usr/lib" -name plugin-blkmap.so)
[ -n "$plugin" ] && [ -d "/usr/lib/$(gcc -print-multiarch)/kernelshark/plugins" ] &&
	[ "${plugin#$T/ks}" = "/usr/lib/$(gcc -print-multiarch)/kernelshark/plugins/plugin-blkmap.so" ] ||
	fail "the plugin is not where KernelShark looks: ${plugin:-none}"
"$top/build/tests/kernelshark/ks-labels" "$plugin" "$top/tests/data/vm61-module.dat" |
	grep -q "block_rq_issue .*\[alpha\]$" || fail "the packaged plugin names no disk in KernelShark"

# DKMS, for the kernel the VM tests boot.
eval "$("$top/tests/vm/prepare" default)"
cleanup_dkms() { dpkg -P blkmap-dkms >/dev/null 2>&1 || true; }
trap 'cleanup_dkms; cleanup' EXIT	# a failed install is purged too
dpkg -i "$dkms_deb" >"$T/dkms.log" 2>&1 || { cat "$T/dkms.log"; fail "blkmap-dkms does not install"; }
# Headers of a kernel the module does not build for (before 5.15, as the
# 5.10 lane's): its build is skipped, not failed.
for old in /usr/src/linux-headers-5.1[0-4].*-amd64; do
	[ -d "$old" ] || continue
	grep -q "Building initial module for ${old#/usr/src/linux-headers-}" "$T/dkms.log" &&
		grep -A1 "Building initial module for ${old#/usr/src/linux-headers-}" "$T/dkms.log" |
		grep -q Skipped || fail "the build for ${old#/usr/src/linux-headers-} was not skipped: $(cat "$T/dkms.log")"
	note "DKMS skipped ${old#/usr/src/linux-headers-}, as it should"
done
dkms build "blkmap/$version" -k "$release" --force >>"$T/dkms.log" 2>&1 ||
	{ cat "$T/dkms.log"; fail "dkms build -k $release failed"; }
ko=$(find "/var/lib/dkms/blkmap/$version/$release" -name 'blkmap.ko*' | head -n 1)
[ -n "$ko" ] || fail "DKMS built no module for $release"
note "DKMS built $ko"
BLKMAP_VM_MODULE=$ko "$top/tests/vm/run" --kernel=default "$top/tests/vm/scenarios/hotplug.sh" \
	"$T/vm" SOURCES=module MODULE=1 || { cat "$T/vm/console.log"; fail "the DKMS module failed in $release"; }
"$BLKMAP" report --map -f csv "$T/vm/rec.dat" >"$T/map.csv"
check_exact "$T/vm/writes.log" "$T/map.csv"
