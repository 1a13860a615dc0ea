package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBench_reportAndProfiles runs `btrun bench` on a fixture: the last line
// has SPEC §7's form with the agent and step counts asked for, and
// -cpuprofile / -memprofile write pprof files (gzip-compressed protobuf).
func TestBench_reportAndProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	r := run(t, "", "bench", "-config", fixture("alarm"), "-agents", "50", "-steps", "20", "-cpuprofile", cpu, "-memprofile", mem)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	last := regexp.MustCompile(`(?m)^bench: 50 agents, 20 steps, [0-9]+ agent-steps/s, [0-9.]+ ns/agent-step, [0-9.]+ allocs/agent-step, [0-9]+ bytes/agent\n$`)
	if !last.MatchString(r.stdout) {
		t.Errorf("the report does not end with the bench line:\n%s", r.stdout)
	}
	for _, p := range []string{cpu, mem} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a pprof profile (%d bytes)", filepath.Base(p), len(data))
		}
	}
	if r := run(t, "", "bench", "-config", fixture("alarm"), "-agents", "5", "-steps", "1", "-cpuprofile", filepath.Join(dir, "no", "such", "cpu.prof")); r.code != 2 {
		t.Errorf("a profile that cannot be written: exit %d, want 2; stderr:\n%s", r.code, r.stderr)
	}
}

// TestBench_workers: `btrun bench -workers 2` steps the agents on two
// workers and reports each one's share, the serial part of a step and the
// projection for more cores; a bad count is a usage error.
func TestBench_workers(t *testing.T) {
	r := run(t, "", "bench", "-config", fixture("gates"), "-agents", "40", "-steps", "10", "-workers", "2")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"on 2 worker(s)", "per step, on one thread: world tick",
		"projection from these parts (Amdahl):", "bench: 40 agents, 10 steps"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, r.stdout)
		}
	}
	// Each worker's line: its agents and share; together, every agent.
	sum := 0
	for _, m := range regexp.MustCompile(`(?m)^  worker [01]: ([0-9]+) agents, [0-9.]+ µs per step \([0-9.]+% of the work\)$`).FindAllStringSubmatch(r.stdout, -1) {
		n, _ := strconv.Atoi(m[1])
		sum += n
	}
	if sum != 40 {
		t.Errorf("the workers' lines count %d agents, want 40:\n%s", sum, r.stdout)
	}
	if r := run(t, "", "bench", "-config", fixture("gates"), "-workers", "-1"); r.code != 2 || !strings.Contains(r.stderr, "-workers -1") {
		t.Errorf("-workers -1: exit %d, %s", r.code, r.stderr)
	}
}

// TestRun_workersOutOfRangeIsAUsageError: btrun run -workers -1 exits 2
// naming the flag.
func TestRun_workersOutOfRangeIsAUsageError(t *testing.T) {
	for _, n := range []string{"-1", "257"} {
		if r := run(t, "", "run", "-config", fixture("alarm"), "-workers", n); r.code != 2 || !strings.Contains(r.stderr, "-workers "+n+": must be from 0") {
			t.Errorf("-workers %s: exit %d, %s", n, r.code, r.stderr)
		}
	}
}

// TestBench_shardsReport: `btrun bench -shards 2` reports the messages,
// bytes and items a step, the CPU time of the conductor and of each shard
// process, and each shard's agents; -cpuprofile makes each shard process
// write a profile of its own, and the conductor one of its measured steps.
func TestBench_shardsReport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	r := run(t, "", "bench", "-config", fixture("gates"), "-agents", "40", "-steps", "5", "-shards", "2", "-cpuprofile", prof)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^config .*: 40 agents on 2 shards of 1 worker\(s\), 5 steps after a first one$`),
		regexp.MustCompile(`(?m)^per step: [0-9.]+ messages, [0-9]+ bytes`),
		regexp.MustCompile(`(?m)^items per step: request [0-9.]+ \([0-9]+ bytes of payload\), answer [0-9.]+ .*; [0-9.]+ rounds$`),
		regexp.MustCompile(`(?m)^CPU time stepping: [0-9.]+ ms a step in all \(the conductor [0-9.]+, the shard processes [0-9.]+, [0-9.]+; plugins apart\)$`),
		regexp.MustCompile(`(?m)^  shard 1: 20 agents, the conductor waited`),
		regexp.MustCompile(`(?m)^peak memory \(VmHWM\): the conductor [0-9]+ MiB, the shard processes [0-9]+, [0-9]+ MiB$`),
	} {
		if !want.MatchString(r.stdout) {
			t.Errorf("no line matching %s in:\n%s", want, r.stdout)
		}
	}
	for _, k := range []string{".shard0", ".shard1", ".conductor"} {
		data, err := os.ReadFile(prof + k)
		if err != nil || !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Errorf("the %s profile: %v (%d bytes)", k, err, len(data))
		}
	}
}
