package sandbox

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Diagnosis is what isolation this machine offers, and why not the rest:
// what `tether doctor` prints.
type Diagnosis struct {
	Auto string `json:"auto"` // what --sandbox auto picks
	// Warning is what --sandbox auto says when it picks less than the
	// linux sandbox (FallbackWarning): what runs instead, why, the fix.
	Warning   string   `json:"warning,omitempty"`
	Sandboxes []Offer  `json:"sandboxes"`
	Checks    []Check  `json:"checks"`
	Notes     []string `json:"notes,omitempty"`
}

// Offer says whether one kind of sandbox can run here.
type Offer struct {
	Kind      string `json:"kind"`
	Available bool   `json:"available"`
	Why       string `json:"why,omitempty"` // why not, or what it lacks
}

// Check is one thing a sandbox needs, as found on this machine.
type Check struct {
	Name     string   `json:"name"`
	OK       bool     `json:"ok"`
	Found    string   `json:"found"`
	Fix      string   `json:"fix,omitempty"` // the command that fixes it, when not OK
	NeededBy []string `json:"needed_by"`
}

// machine is what Diagnose asks of the host; tests play other machines.
type machine struct {
	euid     int
	readFile func(path string) (string, error) // trimmed contents
	cgroups  func() (version string, have []string, where string)
	// makeCgroup makes and removes one sandbox cgroup, as the linux runner
	// would: controllers can be listed and still not be given to one.
	makeCgroup  func() error
	seccomp     bool
	landlockABI int
	python      func() (path, version string, err error)
	probeUserNS func() error
	newLinux    func() (Runner, error)
	newRootless func() (Runner, error)
	// probeOutbound sets up a sandbox's outbound network once and says
	// with what (sandboxNetworkCheck).
	probeOutbound func() (found string, err error)
}

// landlockScopeABI is the first Landlock ABI with IPC scoping.
const landlockScopeABI = 6

// minPython is the oldest Python the SDK supports.
const minPython = "3.9"

func diagnose(m machine) Diagnosis {
	var d Diagnosis
	add := func(c Check) { d.Checks = append(d.Checks, c) }

	root := Check{Name: "root", OK: m.euid == 0, Found: "running as uid " + strconv.Itoa(m.euid), NeededBy: []string{"linux"}}
	if !root.OK {
		root.Fix = "sudo tether ... (run the judge as root for the linux sandbox; the rootless one needs no root)"
	}
	add(root)

	userns := Check{Name: "user_namespaces", OK: true, NeededBy: []string{"rootless"}}
	var found []string
	var fixes []string
	for _, s := range []struct{ path, bad, fix string }{
		{"/proc/sys/user/max_user_namespaces", "0", "sudo sysctl -w user.max_user_namespaces=15000"},
		{"/proc/sys/kernel/unprivileged_userns_clone", "0", "sudo sysctl -w kernel.unprivileged_userns_clone=1"},
		{"/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1", "sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"},
	} {
		v, err := m.readFile(s.path)
		if err != nil {
			continue // not this kernel's knob
		}
		name := strings.ReplaceAll(strings.TrimPrefix(s.path, "/proc/sys/"), "/", ".")
		found = append(found, name+"="+v)
		if v == s.bad {
			userns.OK = false
			fixes = append(fixes, s.fix)
		}
	}
	if err := m.probeUserNS(); err != nil {
		userns.OK = false
		found = append(found, "making one failed: "+err.Error())
		if len(fixes) == 0 {
			fixes = append(fixes, "in a container, allow unshare and clone with user namespaces (docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined)")
		}
	} else {
		found = append(found, "this user can make one")
	}
	userns.Found = strings.Join(found, "; ")
	userns.Fix = strings.Join(fixes, " && ")
	add(userns)

	version, have, where := m.cgroups()
	cg := Check{Name: "cgroups", NeededBy: []string{"linux"}}
	var missing []string
	for _, c := range []string{"memory", "pids", "cpu"} {
		if !containsString(have, c) {
			missing = append(missing, c)
		}
	}
	if version == "v1" && !containsString(have, "cpuacct") {
		missing = append(missing, "cpuacct")
	}
	cg.OK = version != "" && len(missing) == 0
	cg.Found = fmt.Sprintf("cgroup %s at %s, controllers: %s", orNone(version), orNone(where), orNone(strings.Join(have, " ")))
	var made error
	if cg.OK {
		if made = m.makeCgroup(); made != nil {
			cg.OK = false
			cg.Found += "; making a sandbox cgroup failed: " + made.Error()
		} else {
			cg.Found += "; made and removed a sandbox cgroup"
		}
	}
	switch {
	case made != nil && m.euid != 0:
		cg.Fix = "sudo tether ... (only root can make the linux sandbox's cgroups)"
	case made != nil:
		cg.Fix = "run the judge in a cgroup of its own with the controllers delegated to it: systemd-run --scope -p Delegate=yes tether ... (see docs/sandbox.md, cgroup v2)"
	case version == "":
		cg.Fix = "sudo mount -t cgroup2 none /sys/fs/cgroup"
	case version == "v2" && len(missing) > 0:
		cg.Fix = fmt.Sprintf("echo '+%s' | sudo tee %s/cgroup.subtree_control (on the parent of the judge's cgroup; with systemd: systemd-run --scope -p Delegate=yes tether ...)", strings.Join(missing, " +"), where)
	case len(missing) > 0:
		var cmds []string
		for _, c := range missing {
			cmds = append(cmds, fmt.Sprintf("sudo mkdir -p /sys/fs/cgroup/%[1]s && sudo mount -t cgroup -o %[1]s cgroup /sys/fs/cgroup/%[1]s", c))
		}
		cg.Fix = strings.Join(cmds, " && ")
	}
	add(cg)
	if !containsString(have, "cpuset") && version != "" {
		d.Notes = append(d.Notes, "no cpuset controller: --solution-cpus/--evaluator-cpus pin by affinity only, which a program can undo")
	}

	sc := Check{Name: "seccomp", OK: m.seccomp, Found: "seccomp filters: " + yesNo(m.seccomp), NeededBy: []string{"linux", "rootless"}}
	if !sc.OK {
		sc.Fix = "use a kernel built with CONFIG_SECCOMP_FILTER=y (every distribution kernel is)"
	}
	add(sc)

	ll := Check{Name: "landlock", OK: m.landlockABI >= landlockScopeABI, NeededBy: []string{"linux", "rootless"},
		Found: fmt.Sprintf("Landlock ABI %d (abstract Unix socket scoping needs %d, Linux 6.12)", m.landlockABI, landlockScopeABI)}
	if !ll.OK {
		ll.Fix = "boot Linux 6.12 or newer with landlock in the lsm= kernel parameter (e.g. lsm=landlock,lockdown,yama,integrity,apparmor,bpf)"
	}
	add(ll)

	py := Check{Name: "python", NeededBy: []string{"linux", "rootless", "none"}}
	path, v, err := m.python()
	switch {
	case err != nil:
		py.Found = "no python3: " + err.Error()
	default:
		py.Found = "python3 " + v + " at " + path
		py.OK = versionAtLeast(v, minPython)
	}
	if !py.OK {
		py.Fix = "sudo apt-get install -y python3 (the SDK needs Python " + minPython + " or newer on the judge's PATH)"
	}
	add(py)
	add(sandboxNetworkCheck(m.probeOutbound))

	var unavailable []error // of linux, then rootless, until one is available
	for _, o := range []struct {
		kind string
		make func() (Runner, error)
	}{{"linux", m.newLinux}, {"rootless", m.newRootless}} {
		offer := Offer{Kind: o.kind}
		r, err := o.make()
		if d.Auto == "" {
			unavailable = append(unavailable, err)
		}
		if err == nil {
			offer.Available = true
			if c, ok := r.(interface{ Close() error }); ok {
				c.Close()
			}
		} else {
			offer.Why = err.Error()
		}
		d.Sandboxes = append(d.Sandboxes, offer)
		if offer.Available && d.Auto == "" {
			d.Auto = o.kind
		}
	}
	d.Sandboxes = append(d.Sandboxes, Offer{Kind: "none", Available: true, Why: "no isolation at all"})
	if d.Auto == "" {
		d.Auto = "none"
	}
	if d.Auto != "linux" {
		d.Warning = FallbackWarning(unavailable[0], unavailable[len(unavailable)-1])
	}
	return d
}

// sandboxNetworkCheck says whether a sandbox that asks for the network
// (runtime_config.evaluator.network.enabled) can have outbound access
// here; without it such a run fails, and every other run is unaffected.
func sandboxNetworkCheck(probe func() (string, error)) Check {
	c := Check{Name: "sandbox_network", NeededBy: []string{"linux", "rootless"}}
	found, err := probe()
	if err != nil {
		c.Found = "no outbound network for sandboxes (evaluators with network.enabled fail): " + err.Error()
		c.Fix = "sudo apt-get install -y slirp4netns nftables"
		return c
	}
	c.OK = true
	c.Found = "outbound only, through " + found + " (no host loopback, host addresses or private ranges)"
	return c
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// versionAtLeast compares dotted versions ("3.11.7" >= "3.9").
func versionAtLeast(v, min string) bool {
	a, b := strings.Split(v, "."), strings.Split(min, ".")
	for i := range b {
		if i >= len(a) {
			return false
		}
		x, _ := strconv.Atoi(a[i])
		y, _ := strconv.Atoi(b[i])
		if x != y {
			return x > y
		}
	}
	return true
}

// pythonVersion is the host's python3 and its version.
func pythonVersion() (path, version string, err error) {
	path, err = exec.LookPath("python3")
	if err != nil {
		return "", "", err
	}
	out, err := exec.Command(path, "-c", "import platform; print(platform.python_version())").Output()
	return path, strings.TrimSpace(string(out)), err
}
