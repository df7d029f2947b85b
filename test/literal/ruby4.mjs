// Runs a Ruby script on Ruby 4.0 (CRuby compiled to WebAssembly/WASI) under node.
//
//   cd test/literal && npm ci        # once: @ruby/4.0-wasm-wasi + @ruby/wasm-wasi, pinned in package.json
//   node --no-warnings test/literal/ruby4.mjs [-r FILE]... SCRIPT.rb [ARG...] < input > output
//
// Each -r FILE is evaluated first, in order (plain Ruby source: class definitions...).
// The script sees ARG... as ARGV, reads standard input with $stdin and writes to $stdout
// (WASI file descriptors 0, 1 and 2 are the process's own). No host folder is visible to
// it: pass data through stdin. The external encoding is UTF-8 (-EUTF-8, as under a UTF-8
// locale), the internal one is unset.
// Exits 1 with the Ruby error on stderr when the script raises.
//
// The build is 32-bit (Floats are heap objects, Integers above 2**30 are Bignums): use it
// for inspect text and current-Ruby behaviour, never for Marshal bytes.
import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import { WASI } from "node:wasi";
import { fileURLToPath, pathToFileURL } from "node:url";

// Node 20's WASI crashes (segfault in JS code after fd_write, or an abort in
// uvwasi_destroy during GC) once Ruby has grown its WebAssembly memory, unless V8's fast
// API calls are off and the WASI object is kept reachable.  Both are done here.
v8.setFlagsFromString("--no-turbo-fast-api-calls");

const here = path.dirname(fileURLToPath(import.meta.url));
const rubyDir = path.join(here, "node_modules", "@ruby");
const argv = process.argv.slice(2);
const preload = [];
while (argv[0] === "-r" && argv.length > 1) {
  argv.shift();
  preload.push(argv.shift());
}
const [script, ...args] = argv;
if (!script) {
  process.stderr.write("usage: node ruby4.mjs [-r FILE]... SCRIPT.rb [ARG...]\n");
  process.exit(2);
}

const { RubyVM } = await import(pathToFileURL(path.join(rubyDir, "wasm-wasi", "dist", "esm", "index.js")).href);
const wasm = await WebAssembly.compile(fs.readFileSync(path.join(rubyDir, "4.0-wasm-wasi", "dist", "ruby+stdlib.wasm")));
const wasi = new WASI({ version: "preview1", returnOnExit: true });
const vm = new RubyVM();
const imports = { wasi_snapshot_preview1: wasi.wasiImport };
vm.addToImports(imports);
const instance = await WebAssembly.instantiate(wasm, imports);
await vm.setInstance(instance);
wasi.initialize(instance);
globalThis.rubyWasi = wasi; // keep it alive: see above
vm.initialize(["ruby.wasm", "-EUTF-8", "-e_=0"]);

let current = script;
try {
  // ARGV as given, each argument passed as hex so that nothing needs quoting
  const argvHex = args.map((a) => `["${Buffer.from(a, "utf8").toString("hex")}"].pack("H*").force_encoding("UTF-8")`);
  vm.eval(`ARGV.replace([${argvHex.join(", ")}])`);
  for (const file of [...preload, script]) {
    current = file;
    vm.eval(fs.readFileSync(file, "utf8"));
  }
  vm.eval("$stdout.flush; $stderr.flush");
} catch (err) {
  try { vm.eval("$stdout.flush"); } catch { /* already broken */ }
  process.stderr.write(`ruby4.mjs: ${current}: ${err && err.message ? err.message : err}\n`);
  process.exitCode = 1;
}
