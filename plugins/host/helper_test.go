package host

import (
	"bufio"
	"fmt"
	"net/rpc"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/btrun/btrun/plugins/sdk"
)

// The test binary doubles as every plugin and host the tests need
// (go-plugin's helper-process pattern): re-executed with helperEnv set, it
// becomes the plugin that variable names instead of running tests.
const (
	helperEnv     = "BTRUN_HOST_TEST_HELPER"
	markerEnv     = "BTRUN_HOST_TEST_MARKER"      // a file: absent before the first crash or hang
	prefixEnv     = "BTRUN_HOST_TEST_PREFIX"      // replaces "test." in the names the plugin declares
	serveDelayEnv = "BTRUN_HOST_TEST_SERVE_DELAY" // how long the plugin waits before it serves
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		runHelper(mode)
		return
	}
	os.Exit(m.Run())
}

// helperSpec is a Spec that starts the test binary as the given helper.
func helperSpec(name, mode string, env ...string) Spec {
	return Spec{Name: name, Path: os.Args[0], Env: append([]string{helperEnv + "=" + mode}, env...)}
}

func runHelper(mode string) {
	switch mode {
	case "plugin":
		if path := os.Getenv("BTRUN_HOST_TEST_CPUPROFILE"); path != "" {
			f, _ := os.Create(path)
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		if d, err := time.ParseDuration(os.Getenv(serveDelayEnv)); err == nil {
			time.Sleep(d) // a plugin slow to start (TestStart_startedLinesInTheirOrder)
		}
		p := testPlugin()
		if prefix := os.Getenv(prefixEnv); prefix != "" {
			for i := range p.Actions {
				p.Actions[i].Name = prefix + strings.TrimPrefix(p.Actions[i].Name, "test.")
			}
			for i := range p.Conditions {
				p.Conditions[i].Name = prefix + strings.TrimPrefix(p.Conditions[i].Name, "test.")
			}
			for i := range p.Scorers {
				p.Scorers[i].Name = prefix + strings.TrimPrefix(p.Scorers[i].Name, "test.")
			}
		}
		sdk.Serve(p)
	case "stdout":
		fmt.Println("hello, I print before serving")
		sdk.Serve(testPlugin())
	case "version99":
		hs := sdk.Handshake
		hs.ProtocolVersion = 99
		goplugin.Serve(&goplugin.ServeConfig{HandshakeConfig: hs,
			VersionedPlugins: map[int]goplugin.PluginSet{99: {sdk.PluginKey: &sdk.GRPCPlugin{}}},
			GRPCServer:       goplugin.DefaultGRPCServer})
	case "netrpc":
		goplugin.Serve(&goplugin.ServeConfig{HandshakeConfig: sdk.Handshake,
			Plugins: goplugin.PluginSet{sdk.PluginKey: netrpcPlugin{}}})
	case "othercookie":
		hs := sdk.Handshake
		hs.MagicCookieKey, hs.MagicCookieValue = "SOME_OTHER_APP", "x"
		goplugin.Serve(&goplugin.ServeConfig{HandshakeConfig: hs,
			Plugins: goplugin.PluginSet{"kv": &sdk.GRPCPlugin{}}, GRPCServer: goplugin.DefaultGRPCServer})
	case "silent-exit":
		os.Exit(0)
	case "host":
		helperHost()
	case "host-nolifeline":
		helperHostWithoutLifeline()
	case "hang-before-serve":
		writePidFile()
		select {}
	case "host-hanging-plugin":
		helperHostStarting(helperSpec("p", "hang-before-serve", pidFileEnv+"="+os.Getenv(pidFileEnv)))
	case "host-build":
		os.Setenv("PATH", os.Getenv(fakeGoEnv)+string(os.PathListSeparator)+os.Getenv("PATH"))
		helperHostStarting(Spec{Name: "built", Path: os.Getenv(fakeGoEnv) + "/pkg"})
	default:
		fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
		os.Exit(2)
	}
}

// pidFileEnv names a file where a helper writes the pid of the process to
// watch; fakeGoEnv a folder holding a fake go command and a package.
const (
	pidFileEnv = "BTRUN_HOST_TEST_PIDFILE"
	fakeGoEnv  = "BTRUN_HOST_TEST_FAKEGO"
)

func writePidFile() {
	os.WriteFile(os.Getenv(pidFileEnv), []byte(strconv.Itoa(os.Getpid())), 0o644)
}

// helperHostStarting starts a Set with spec (which does not finish
// starting: the plugin hangs, or its build does), prints "pid N" for the
// process that the pid file names once it exists, and waits to be killed.
func helperHostStarting(spec Spec) {
	go func() {
		for {
			if data, err := os.ReadFile(os.Getenv(pidFileEnv)); err == nil && len(data) > 0 {
				fmt.Println("pid", string(data))
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	Start(t0(), []Spec{spec}, Options{StartTimeout: time.Minute, CacheDir: os.Getenv(pidFileEnv) + ".cache"})
	time.Sleep(time.Minute)
}

type netrpcPlugin struct{}

func (netrpcPlugin) Server(*goplugin.MuxBroker) (any, error)              { return struct{}{}, nil }
func (netrpcPlugin) Client(*goplugin.MuxBroker, *rpc.Client) (any, error) { return nil, nil }

// helperHost starts a Set running the test plugin, prints the plugin's pid
// and waits to be killed.
func helperHost() {
	set, err := Start(t0(), []Spec{helperSpec("p", "plugin")}, Options{})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println("pid", set.Plugins()[0].Pid)
	time.Sleep(time.Minute)
}

// helperHostWithoutLifeline starts the test plugin by hand, as a host
// other than btrun's would (no lifeline), prints its pid once it serves and
// waits to be killed: the plugin must notice through its parent pid.
func helperHostWithoutLifeline() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(hostEnv(), helperEnv+"=plugin",
		sdk.Handshake.MagicCookieKey+"="+sdk.Handshake.MagicCookieValue, "PLUGIN_PROTOCOL_VERSIONS=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	bufio.NewReader(out).ReadString('\n') // the handshake line: it serves
	fmt.Println("pid", cmd.Process.Pid)
	time.Sleep(time.Minute)
}

// firstTime reports whether the marker file did not exist yet, creating it:
// the plugin misbehaves the first time only, so a restarted one works.
func firstTime() bool {
	path := os.Getenv(markerEnv)
	if path == "" {
		return false
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// testPlugin declares what the tests call:
//   - test.count: runs count.n times (default 2) keeping the count in its
//     state bytes, then succeeds; writes field "count"; sets the timestamp
//     named by count.stamp on success and signals count.signal.
//   - test.gates: writes field "gate": what it reads of gate g (bt.gate.g.slot, .open, .holders).
//   - test.result: returns the parameter result.is (success, failure, running).
//   - test.move: adds dx to field x (reads x, writes x).
//   - test.crash: exits the process mid-call the first time; then succeeds.
//   - test.hang: blocks forever the first time; then succeeds.
//   - test.jump: jumps to jump.to and succeeds.
//   - test.log: logs through the SDK and writes to stderr and stdout.
//   - test.fail: returns an error.
//   - test.flag (condition): the boolean field "flag".
//   - test.cancellable: running; its cancel hook sets field "cancelled".
//   - test.urge (scorer): the number field "urge" times parameter urge.times (default 1).
func testPlugin() *sdk.Plugin {
	return &sdk.Plugin{
		Name: "test",
		Actions: []sdk.Action{
			{Name: "test.count", Writes: []string{"count"}, Run: func(c *sdk.Call) (sdk.Status, error) {
				n, err := c.Params.Int("count.n", 2)
				if err != nil {
					return 0, err
				}
				k := 0
				if s := c.State(); len(s) > 0 {
					k, _ = strconv.Atoi(string(s))
				}
				k++
				c.SetState([]byte(strconv.Itoa(k)))
				if err := c.SetField("count", float64(k)); err != nil {
					return 0, err
				}
				if k < n {
					return sdk.Running, nil
				}
				if s := c.Params.String("count.stamp", ""); s != "" {
					c.SetStamp(s)
				}
				if s := c.Params.String("count.signal", ""); s != "" {
					c.Signal(s)
				}
				return sdk.Success, nil
			}},
			{Name: "test.gates", Reads: []string{"bt.gate.g.slot", "bt.gate.g.open", "bt.gate.g.holders"}, Writes: []string{"gate"},
				Run: func(c *sdk.Call) (sdk.Status, error) {
					slot, held := c.FieldFloat("bt.gate.g.slot")
					open, _ := c.FieldBool("bt.gate.g.open")
					n, _ := c.FieldFloat("bt.gate.g.holders")
					return sdk.Success, c.SetField("gate", fmt.Sprintf("slot=%v(%t) open=%t holders=%v", slot, held, open, n))
				}},
			{Name: "test.result", Run: func(c *sdk.Call) (sdk.Status, error) {
				switch r := c.Params.String("result.is", "success"); r {
				case "success":
					return sdk.Success, nil
				case "failure":
					return sdk.Failure, nil
				case "running":
					return sdk.Running, nil
				default:
					return 0, fmt.Errorf("result.is = %q", r)
				}
			}},
			{Name: "test.move", Reads: []string{"x"}, Writes: []string{"x"}, Run: func(c *sdk.Call) (sdk.Status, error) {
				x, _ := c.FieldFloat("x")
				dx, err := c.Params.Float("move.dx", 1)
				if err != nil {
					return 0, err
				}
				return sdk.Success, c.SetField("x", x+dx)
			}},
			{Name: "test.crash", Run: func(c *sdk.Call) (sdk.Status, error) {
				if firstTime() {
					os.Exit(7)
				}
				return sdk.Success, nil
			}},
			{Name: "test.hang", Run: func(c *sdk.Call) (sdk.Status, error) {
				if firstTime() {
					select {}
				}
				return sdk.Success, nil
			}},
			{Name: "test.graft", Run: func(c *sdk.Call) (sdk.Status, error) {
				if tree := c.Params.String("graft.tree", ""); tree != "" {
					c.Graft("use", tree)
				} else {
					c.Ungraft("use")
				}
				return sdk.Success, nil
			}},
			{Name: "test.jump", Run: func(c *sdk.Call) (sdk.Status, error) {
				c.Jump(c.Params.String("jump.to", ""))
				return sdk.Success, nil
			}},
			{Name: "test.log", Run: func(c *sdk.Call) (sdk.Status, error) {
				sdk.Logf("hello from %s", c.Agent)
				sdk.Warnf("careful, %s", c.Agent)
				fmt.Fprintln(os.Stderr, "a raw line on stderr")
				fmt.Println("a raw line on stdout")
				return sdk.Success, nil
			}},
			{Name: "test.fail", Run: func(c *sdk.Call) (sdk.Status, error) {
				return 0, fmt.Errorf("the path is blocked")
			}},
			// test.relay waits for the agent's Order; then it sends the
			// agent itself an Echo of the order's data and age, and passes
			// the order on to relay.to with a hop count.
			{Name: "test.relay", Stimuli: []string{"Order", "Never"}, Run: func(c *sdk.Call) (sdk.Status, error) {
				order, age, ok := c.Stimulus("Order")
				if !ok {
					return sdk.Running, nil
				}
				if _, _, ok := c.Stimulus("Never"); ok {
					return 0, fmt.Errorf("the agent holds Never")
				}
				x, _ := order.Field("x")
				if err := c.SendData("self", "Echo", map[string]any{"x": x, "age": age, "all": order}); err != nil {
					return 0, err
				}
				return sdk.Success, c.SendData(c.Params.String("relay.to", "self"), "Relay", []any{"hop", 1, true})
			}},
			// test.deep sends data nested deeper than a signal may carry.
			{Name: "test.deep", Run: func(c *sdk.Call) (sdk.Status, error) {
				d := sdk.Data{Kind: sdk.DataNumber, Num: 1}
				for range 20 {
					d = sdk.Data{Kind: sdk.DataTable, Table: []sdk.DataEntry{{Key: sdk.Data{Kind: sdk.DataString, Str: "a"}, Value: d}}}
				}
				c.Send("self", "Plain")
				return sdk.Success, c.SendData("self", "Deep", d)
			}},
			{Name: "test.cancellable", Writes: []string{"cancelled"},
				Run: func(c *sdk.Call) (sdk.Status, error) { return sdk.Running, nil },
				Cancel: func(c *sdk.Call) error {
					c.Log("cancelled by the runtime")
					return c.SetField("cancelled", true)
				}},
		},
		Conditions: []sdk.Condition{
			{Name: "test.flag", Reads: []string{"flag"}, Test: func(c *sdk.Call) (bool, error) {
				v, _ := c.FieldBool("flag")
				return v, nil
			}},
		},
		Scorers: []sdk.Scorer{
			{Name: "test.urge", Reads: []string{"urge"}, Score: func(c *sdk.Call) (float64, error) {
				v, _ := c.FieldFloat("urge")
				k, err := c.Params.Float("urge.times", 1)
				return v * k, err
			}},
		},
	}
}
