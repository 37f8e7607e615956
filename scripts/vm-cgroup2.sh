#!/usr/bin/env bash
# Runs the linux sandbox's cgroup tests on a cgroup-v2-only machine: a QEMU
# VM (TCG emulation) booting Debian's
# kernel with a busybox initramfs. The guest sees this machine's root
# read-only over 9p, mounts nothing but cgroup2 at /sys/fs/cgroup, and runs
# the sandbox and judge test binaries built here (`go test -c`, so the guest
# needs no Go) as root with TETHER_REQUIRE_SANDBOX=1, twice: with the judge
# in the root cgroup, and in a delegated child cgroup that holds the judge's
# own process, as systemd gives a service with Delegate=yes.
#
# Needs (as root): qemu-system-x86 linux-image-amd64 busybox-static.
# Environment:
#   VM_CGROUP2_RUN   -run regex of the tests (default: the cgroup cases below)
#   VM_CGROUP2_ACCEL tcg (default) or kvm
#   VM_CGROUP2_KEEP  set to keep the work dir (console log, test output)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

die() { echo "vm-cgroup2: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (the sandbox tests need it, and so does the 9p export of /)"
command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64: apt-get install -y qemu-system-x86"
busybox=$(command -v busybox) || die "no busybox: apt-get install -y busybox-static"
kernel=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
[ -n "$kernel" ] || die "no kernel in /boot: apt-get install -y linux-image-amd64"
kver=${kernel#/boot/vmlinuz-}
[ -d "/lib/modules/$kver" ] || die "no /lib/modules/$kver for $kernel"

# The cases that differ on cgroup v2: cgroups made and removed, memory
# limit and peak, the pids limit, CPU time summed over a sandbox's
# processes, CPU weight and cpuset, clean-up after a killed judge; and the
# judge's runs through the linux sandbox.
default_run='^(TestLinuxMemoryLimit|TestLinuxForkBombIsCapped|TestLinuxCPULimit|TestLinuxCgroupHoldsOnlyTheSandbox|TestLinuxPidsLimitIsExact|TestLinuxSandboxHasCPUWeight|TestLinuxCPUs|TestLinuxCleansUpAfterKilledJudge|TestLinuxLeftoversDieWithTheProgram|TestLinuxWarmPoolPrepares|TestLinuxStdinToStdout|TestMakeCgroup.*)$'
# (-run applies what follows the / to subtests: TestHostileSolutions' only.)
default_judge_run='^(TestHostileSolutions|TestSolutionOverCPUCapIsTimeLimitExceeded|TestSolutionCPUCapSumsTheCalls|TestEvaluatorTempfile)$/^(fork_bomb|pids_probe|memory_hog|infinite_loop)\.py$'
# In the delegated placement the judge's cases that end by a call's time
# limit (fork_bomb, infinite_loop: 33 s each under TCG) add nothing the root
# placement has not shown: the placement changes where cgroups are made,
# which every case exercises.
default_delegated_judge_run='^(TestHostileSolutions|TestSolutionOverCPUCapIsTimeLimitExceeded|TestSolutionCPUCapSumsTheCalls|TestEvaluatorTempfile)$/^(pids_probe|memory_hog)\.py$'
run=${VM_CGROUP2_RUN:-$default_run}
judge_run=${VM_CGROUP2_JUDGE_RUN:-$default_judge_run}
delegated_judge_run=${VM_CGROUP2_JUDGE_RUN:-$default_delegated_judge_run}

# TCG by default: nested KVM, where /dev/kvm exists at all, is not to be
# trusted (on this project's machines a KVM guest hangs before its first
# kernel message).
accel=${VM_CGROUP2_ACCEL:-tcg}
# Emulated CPUs run several times slower than real ones: the tests' wall
# clock limits (not CPU time limits, which the guest's own clock measures)
# are stretched by this factor (internal/testenv.TimeScale).
scale=1
[ "$accel" = tcg ] && scale=${TETHER_TIME_SCALE:-8}

work=$(mktemp -d /tmp/tether-vm.XXXXXX)
if [ -z "${VM_CGROUP2_KEEP:-}" ]; then trap 'rm -rf "$work"' EXIT; fi
mkdir -p "$work/bin" "$work/out" "$work/initramfs"

echo "vm-cgroup2: building the test binaries"
go test -c -o "$work/bin/sandbox.test" ./sandbox
go test -c -o "$work/bin/judge.test" ./judge
cp "$busybox" "$work/bin/busybox"

# The initramfs: busybox, the 9p modules of this kernel, and an /init that
# mounts the host's root and the work dir and hands over to guest.sh.
ird=$work/initramfs
mkdir -p "$ird/bin" "$ird/mods" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/newroot"
cp "$busybox" "$ird/bin/busybox"
: >"$ird/mods/order"
for m in virtio_pci 9pnet_virtio 9p; do
  modprobe -S "$kver" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
done | awk '!seen[$0]++' | while read -r ko; do
  case $ko in
    *.ko) cp "$ko" "$ird/mods/" ;;
    *.ko.xz) xz -dc "$ko" >"$ird/mods/$(basename "${ko%.xz}")"; ko=${ko%.xz} ;;
    *.ko.zst) zstd -qdc "$ko" >"$ird/mods/$(basename "${ko%.zst}")"; ko=${ko%.zst} ;;
  esac
  basename "$ko" >>"$ird/mods/order"
done
printf '%s\n' "$repo" >"$ird/repo-path" # where /init mounts the repository share
cat >"$ird/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod "/mods/$m" || echo "vm: insmod $m failed"; done
# cache=loose: the guest keeps what it read of the shares in its page cache.
# Without it every exec, open and stat in the guest is a 9p round trip
# served by QEMU's main thread, busier than the two vCPUs: the step took
# 390 s of CPU without it, 165 s with it. Nothing on the shares changes
# while the guest runs (its /tmp and /run are its own tmpfs; it writes out/
# on the work share, and syncs before powering off).
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /newroot || { echo "vm: cannot mount the host root"; poweroff -f; }
mount -t proc proc /newroot/proc
mount -t sysfs sys /newroot/sys
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup
mount -t devtmpfs dev /newroot/dev
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp
mount -t tmpfs -o mode=755 tmpfs /newroot/run
mkdir /newroot/tmp/vm
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose work /newroot/tmp/vm
# The repository on a share of its own, at its own path: a clone under /tmp
# or /run would be hidden by the guest's own tmpfs there.
repo=$(cat /repo-path)
mkdir -p "/newroot$repo"
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose repo "/newroot$repo" || { echo "vm: cannot mount the repository at $repo"; poweroff -f; }
umount /proc /sys
exec switch_root /newroot /tmp/vm/bin/busybox sh /tmp/vm/guest.sh
EOF
chmod +x "$ird/init"
(cd "$ird" && find . | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1 >"$work/initramfs.gz")

# guest.sh runs as PID 1 in the guest, with the host's root as its root.
cat >"$work/guest.sh" <<EOF
bb=/tmp/vm/bin/busybox
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
export TETHER_REQUIRE_SANDBOX=1 TETHER_TIME_SCALE=$scale GOTRACEBACK=all
echo "vm: kernel \$(\$bb uname -r), cgroup mounts: \$(\$bb grep cgroup /proc/mounts | \$bb tr '\\n' ';')"
echo "+cpu +memory +pids +cpuset" >/sys/fs/cgroup/cgroup.subtree_control
status=0
suite() { # where, binary, package dir, -run regex
  echo "vm: === \$2 with the judge in \$1 (cgroup \$(\$bb cat /proc/self/cgroup))"
  (cd "$repo/\$3" && /tmp/vm/bin/\$2 -test.v -test.count=1 -test.timeout=15m -test.run "\$4") >/tmp/vm/out/\$1-\$2.log 2>&1
  rc=\$?
  \$bb grep -E '^(=== RUN|--- (FAIL|SKIP)|    |PASS|FAIL|ok|panic)' /tmp/vm/out/\$1-\$2.log | \$bb grep -v '^=== RUN' | \$bb head -n 200
  \$bb grep -c -- '--- PASS' /tmp/vm/out/\$1-\$2.log | \$bb sed 's/^/vm: passed: /'
  echo "vm: \$2 in \$1: exit \$rc"
  [ \$rc = 0 ] || status=1
}
leftovers() { # sandbox cgroups are made in a "tether" dir
  left=\$(\$bb find /sys/fs/cgroup -mindepth 2 -type d -path '*/tether/*')
  if [ -n "\$left" ]; then echo "vm: cgroups left behind after \$1:"; echo "\$left"; status=1; fi
}
# 1. The judge in the root cgroup (a container's or a VM's PID 1).
suite root sandbox.test sandbox '$run'
suite root judge.test judge '$judge_run'
leftovers root
# 2. The judge in a child cgroup with the controllers delegated to it, its
# own process inside (systemd's Delegate=yes service).
\$bb mkdir /sys/fs/cgroup/judge.slice
echo \$\$ >/sys/fs/cgroup/judge.slice/cgroup.procs
suite delegated sandbox.test sandbox '$run'
suite delegated judge.test judge '$delegated_judge_run'
echo \$\$ >/sys/fs/cgroup/cgroup.procs
leftovers delegated
echo \$status >/tmp/vm/out/status
echo "vm: status \$status"
\$bb sync
\$bb poweroff -f
EOF

echo "vm-cgroup2: booting $kernel ($accel, time limits x$scale)"
start=$(date +%s)
set +e
timeout 900 qemu-system-x86_64 -accel "$accel" -m 3072 -smp 2 -nographic -no-reboot \
  -kernel "$kernel" -initrd "$work/initramfs.gz" \
  -append "console=ttyS0 quiet panic=-1 rdinit=/init" \
  -virtfs "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap" \
  -virtfs "local,path=$work,mount_tag=work,security_model=passthrough,multidevs=remap" \
  -virtfs "local,path=$repo,mount_tag=repo,security_model=passthrough,readonly=on,multidevs=remap" \
  </dev/null | tee "$work/console.log" | grep --line-buffered -E '^(vm|---|    |FAIL|ok|PASS|panic)' 
set -e
echo "vm-cgroup2: VM ran $(( $(date +%s) - start ))s"
status=$(cat "$work/out/status" 2>/dev/null) || status=
if [ "$status" != 0 ]; then
  echo "vm-cgroup2: FAILED (status '${status:-none}'); the console said:" >&2
  tail -n 60 "$work/console.log" >&2
  for f in "$work"/out/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 80 "$f" >&2; }; done
  exit 1
fi
echo "vm-cgroup2: ok"
