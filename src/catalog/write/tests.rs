use super::*;
use proptest::prelude::*;

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ridgeline-write-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn no_origin(mut e: HardwareEntry) -> HardwareEntry {
    e.origin = String::new();
    e
}

#[test]
fn figures_are_written_with_the_largest_exact_unit() {
    // Each text reads back to the same f64 (checked in `quantity`); the
    // shortest such text wins: 989.4e12 / 1e12 = 989.4 exactly.
    assert_eq!(quantity(989.4e12, Kind::FlopRate), "989.4 TFLOPS");
    assert_eq!(quantity(3.35e12, Kind::Bandwidth), "3.35 TB/s");
    assert_eq!(quantity(80e9, Kind::Bytes), "80 GB");
    // 16 GiB = 16 x 2^30 = 17179869184 bytes: "17.179869184 GB" is longer.
    assert_eq!(quantity(17_179_869_184.0, Kind::Bytes), "16 GiB");
    assert_eq!(quantity(700.0, Kind::Power), "700 W");
    // A number of at least 1 before a shorter one: 600e9 / 1e9 = 600.
    assert_eq!(quantity(600e9, Kind::Bandwidth), "600 GB/s");
    // 0.015 W: 0.015 / 1e-3 prints as 15, and "15 mW" reads 15 / 1000.
    assert_eq!(quantity(0.015, Kind::Power), "15 mW");
}

proptest! {
    /// Whatever the figure, the text reads back as exactly that f64.
    #[test]
    fn every_figure_reads_back_exactly(m in 1.0f64..1000.0, e in 0i32..19, k in 0usize..4) {
        let kind = [Kind::FlopRate, Kind::Bandwidth, Kind::Bytes, Kind::Power][k];
        let v = m * 10f64.powi(e - if kind == Kind::Power { 6 } else { 0 });
        let text = quantity(v, kind);
        prop_assert_eq!(units::parse(&text, kind), Ok(v), "{}", text);
    }
}

#[test]
fn every_builtin_device_and_region_loads_back_to_the_same_entry() {
    let c = Catalog::builtin();
    for e in &c.hardware {
        let text = device_toml(e);
        let mut back = Catalog::default();
        back.add_hardware_file("back.toml", &text);
        assert!(
            back.diagnostics.is_empty(),
            "{:?}\n{text}",
            back.diagnostics
        );
        let got = back.hardware(&e.hw.id).unwrap().clone();
        assert_eq!(no_origin(got), no_origin(e.clone()), "{text}");
    }
    for r in &c.regions {
        let text = region_toml(r);
        let mut back = Catalog::default();
        back.add_region_file("back.toml", &text);
        assert!(
            back.diagnostics.is_empty(),
            "{:?}\n{text}",
            back.diagnostics
        );
        let mut got = back.region(&r.id).unwrap().clone();
        got.origin = r.origin.clone();
        assert_eq!(&got, r, "{text}");
    }
}

/// A user file with comments around and inside two entries.
const FILE: &str = r#"# my devices
# (kept by hand)

[[device]]
id = "alpha"   # first
name = "Alpha"
vendor = "me"
tier = "edge"
year = 2024
source = "bench"
memory = "8 GB"
memory_bandwidth = "100 GB/s"

[device.peak]
fp16 = "10 TFLOPS"   # measured

# about beta:
[[device]]
id = "beta"
name = "Beta"
vendor = "me"
tier = "edge"
year = 2025
source = "bench"
memory = "16 GB"
memory_bandwidth = "200 GB/s"
[device.peak]
fp16 = "20 TFLOPS"
# the end
"#;

fn alpha(bw: f64) -> String {
    let mut c = Catalog::default();
    c.add_hardware_file("f", FILE);
    let mut e = c.hardware("alpha").unwrap().clone();
    e.hw.memory_bandwidth = bw;
    device_toml(&e)
}

#[test]
fn replacing_an_entry_keeps_every_other_byte() {
    let new = upsert(FILE, "device", "alpha", &alpha(150e9), Mode::Replace).unwrap();
    // Everything from the comment after alpha's last value is untouched...
    let tail = &FILE[FILE.find("\n# about beta:").unwrap()..];
    assert!(new.ends_with(tail), "{new}");
    // ...and so is everything before its header.
    assert!(new.starts_with("# my devices\n# (kept by hand)\n\n[[device]]\nid = \"alpha\"\n"));
    let mut c = Catalog::default();
    c.add_hardware_file("f", &new);
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    assert_eq!(c.hardware("alpha").unwrap().hw.memory_bandwidth, 150e9);
    assert_eq!(c.hardware("beta").unwrap().hw.memory_bandwidth, 200e9);
    assert_eq!(c.hardware.len(), 2);
}

#[test]
fn a_new_entry_is_appended_and_a_taken_id_is_refused() {
    let mut e = Catalog::builtin().hardware("h100-sxm").unwrap().clone();
    e.hw.id = "gamma".into();
    e.aliases.clear();
    let new = upsert(FILE, "device", "gamma", &device_toml(&e), Mode::Add).unwrap();
    assert!(new.starts_with(FILE), "appended after every byte");
    assert!(new[FILE.len()..].starts_with("\n[[device]]\nid = \"gamma\""));
    assert_eq!(
        upsert(FILE, "device", "beta", &device_toml(&e), Mode::Add),
        Err(UpsertError::Taken("beta".into()))
    );
    // An empty file gets the entry alone.
    let only = upsert("", "device", "gamma", &device_toml(&e), Mode::Add).unwrap();
    assert_eq!(only, device_toml(&e));
}

#[test]
fn text_that_is_not_toml_or_not_tables_is_refused() {
    let broken = "[[device]]\nid = \"x\nname = 1\n";
    let e = upsert(broken, "device", "x", "[[device]]\n", Mode::Add).unwrap_err();
    assert!(
        matches!(e, UpsertError::NotToml(ref m) if m.starts_with("line 2")),
        "{e:?}"
    );
    let inline = "device = [{ id = \"x\" }]\n";
    let e = upsert(inline, "device", "y", "[[device]]\n", Mode::Add).unwrap_err();
    assert!(
        e.to_string().contains("not written as [[device]] tables"),
        "{e}"
    );
}

fn new_device(id: &str) -> HardwareEntry {
    let mut e = Catalog::builtin().hardware("l4").unwrap().clone();
    e.hw.id = id.into();
    e.aliases.clear();
    e.source = "user entry".into();
    e
}

#[test]
fn saving_adds_or_replaces_by_id_and_keeps_every_other_entry() {
    let d = temp("save");
    let path = hardware_file(&d);
    // No file yet: the directories are made.
    let taken = |_: &str| false;
    let s = save_device(&path, &new_device("mine"), Mode::Add, &taken).unwrap();
    assert_eq!(s.id, "mine");
    assert!(!s.written.replaced);
    // A second device with the same id (added by hand meanwhile, say) is
    // not overwritten: the new one gets a suffix.
    let s = save_device(&path, &new_device("mine"), Mode::Add, &taken).unwrap();
    assert_eq!(s.id, "mine-2");
    // An id the catalog already uses is avoided too.
    let s = save_device(&path, &new_device("l4"), Mode::Add, &|id: &str| id == "l4").unwrap();
    assert_eq!(s.id, "l4-2");
    // Replace the first; the others are still there.
    let mut e = new_device("mine");
    e.hw.memory_bytes = 48e9;
    let s = save_device(&path, &e, Mode::Replace, &taken).unwrap();
    assert!(s.written.replaced);
    let mut c = Catalog::default();
    c.add_hardware_file("f", &std::fs::read_to_string(&path).unwrap());
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let ids: Vec<&str> = c.hardware.iter().map(|e| e.hw.id.as_str()).collect();
    assert_eq!(ids, ["mine", "mine-2", "l4-2"]);
    assert_eq!(c.hardware("mine").unwrap().hw.memory_bytes, 48e9);
    std::fs::remove_dir_all(&d).ok();
}

#[cfg(unix)]
#[test]
fn a_broken_file_is_refused_and_left_as_it_was() {
    use std::os::unix::fs::PermissionsExt;
    let d = temp("broken");
    let path = hardware_file(&d);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let broken = "[[device]]\nid = \"half\nmemory = \"8 GB\"\n";
    std::fs::write(&path, broken).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let err = save_device(&path, &new_device("mine"), Mode::Add, &|_: &str| false).unwrap_err();
    assert!(err.contains("not valid TOML"), "{err}");
    assert!(err.contains("left as it was"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), broken);
    // Nothing else appeared in the directory (no temporary file).
    let n = std::fs::read_dir(path.parent().unwrap()).unwrap().count();
    assert_eq!(n, 1);
    // A good file keeps its permissions across a save.
    std::fs::write(&path, FILE).unwrap();
    save_device(&path, &new_device("mine"), Mode::Add, &|_: &str| false).unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert!(std::fs::read_to_string(&path).unwrap().starts_with(FILE));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn an_entry_of_the_file_that_does_not_load_keeps_its_bytes() {
    // `half` has no memory: the catalog skips it, so its id looks free;
    // a new device named so gets another id and `half` stays as written.
    let d = temp("half");
    let path = hardware_file(&d);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let half = "[[device]]\nid = \"half\"\nname = \"Half\"\n";
    std::fs::write(&path, half).unwrap();
    let s = save_device(&path, &new_device("half"), Mode::Add, &|_: &str| false).unwrap();
    assert_eq!(s.id, "half-2");
    assert!(std::fs::read_to_string(&path).unwrap().starts_with(half));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn regions_save_the_same_way() {
    let d = temp("regions");
    let path = regions_file(&d);
    let mut r = Catalog::builtin().region("us-east").unwrap().clone();
    r.id = "my-dc".into();
    r.pue = 1.35;
    let s = save_region(&path, &r, Mode::Add, &|_: &str| false).unwrap();
    assert_eq!(s.id, "my-dc");
    r.grid_gco2_per_kwh = 12.5;
    save_region(&path, &r, Mode::Replace, &|_: &str| false).unwrap();
    let c = Catalog::load(Some(&d));
    assert!(c.diagnostics.is_empty(), "{:?}", c.diagnostics);
    let got = c.region("my-dc").unwrap();
    assert_eq!((got.pue, got.grid_gco2_per_kwh), (1.35, 12.5));
    assert_eq!(c.regions.iter().filter(|r| r.id == "my-dc").count(), 1);
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_preview_puts_an_entry_without_a_file() {
    let mut c = Catalog::builtin();
    let n = c.hardware.len();
    let i = c.put_hardware(new_device("draft"));
    assert_eq!((i, c.hardware.len()), (n, n + 1));
    assert_eq!(c.hardware("draft").unwrap().hw.id, "draft");
    // Again with the same id: the same slot.
    let mut e = new_device("draft");
    e.hw.memory_bytes = 1e9;
    assert_eq!(c.put_hardware(e), n);
    assert_eq!(c.hardware[n].hw.memory_bytes, 1e9);
    // An id that is another device's alias does not take its place.
    let i = c.put_hardware(new_device("h100"));
    assert_eq!(c.hardware("h100").unwrap().hw.id, "h100-sxm");
    assert_eq!(c.hardware[i].hw.id, "h100");
    let mut r = c.region("us-east").unwrap().clone();
    r.id = "draft".into();
    let j = c.put_region(r);
    assert_eq!(c.region("draft").unwrap().id, "draft");
    assert_eq!(c.regions[j].id, "draft");
}

#[test]
fn a_built_in_file_is_never_written() {
    let d = temp("builtin");
    let file = d.join("nvidia-datacenter.toml");
    let shipped =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog/hardware/nvidia-datacenter.toml");
    let text = std::fs::read(&shipped).unwrap();
    std::fs::write(&file, &text).unwrap();
    let c = Catalog::builtin();
    let e = c.hardware("h100-sxm").unwrap().clone();
    for mode in [Mode::Add, Mode::Replace] {
        let err = save_device(&file, &e, mode, &|_| false).unwrap_err();
        assert!(err.contains("built-in catalog files"), "{err}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), text);
    std::fs::remove_dir_all(&d).ok();
}
