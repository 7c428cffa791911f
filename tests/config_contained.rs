//! The user's config stays the user's (issue 19, section 2). Run from a
//! copy of the repository's catalog with `RIDGELINE_CONFIG_DIR=` (set but
//! empty), the device form's save goes through the workbench's own code
//! path (`app_from_env`, `e` on a built-in device, Ctrl-S) and every
//! built-in file stays byte-identical: the copy lands in the platform
//! config directory, never in `catalog/`. One test in this file: it
//! changes the current directory and the environment of its process.

use ridgeline::tui::{Action, App, Command, TuiOptions, app_from_env, update};
use std::path::{Path, PathBuf};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Every file under `dir`, relative to it, with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p.strip_prefix(dir).unwrap().to_path_buf(), bytes));
            }
        }
    }
    out.sort();
    out
}

fn save_a_copy_of_h100(a: &mut App) -> String {
    a.hw = a
        .catalog
        .hardware
        .iter()
        .position(|e| e.hw.id == "h100-sxm")
        .unwrap();
    a.recompute();
    update(a, Action::Do(Command::EditCopy));
    let f = a.form.as_ref().expect("the device form is open");
    assert_eq!(f.id, "h100-sxm-custom", "a built-in device is only copied");
    update(a, Action::Do(Command::Save));
    assert!(a.form.is_none(), "saved: {:?}", a.message);
    a.message.clone().unwrap().1
}

#[test]
fn saving_the_device_form_with_an_empty_config_dir_leaves_every_builtin_file_alone() {
    let root = std::env::temp_dir().join(format!("ridgeline-contained-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let repo = root.join("repo");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("catalog");
    copy_dir(&shipped, &repo.join("catalog"));
    let before = files(&repo.join("catalog"));
    assert_eq!(before, files(&shipped));
    let xdg = root.join("xdg");
    std::env::set_current_dir(&repo).unwrap();
    // SAFETY: the only test of this binary; no other thread reads the
    // environment while it is changed.
    unsafe {
        std::env::set_var("RIDGELINE_CONFIG_DIR", "");
        std::env::set_var("XDG_CONFIG_HOME", &xdg);
        std::env::set_var("HOME", root.join("home"));
    }

    // Empty means unset: the platform config dir ($XDG_CONFIG_HOME here).
    let mut a = app_from_env(&TuiOptions::default()).unwrap();
    let user = xdg.join("ridgeline/catalog");
    assert_eq!(a.catalog_dir.as_deref(), Some(user.as_path()));
    let said = save_a_copy_of_h100(&mut a);
    assert!(said.contains("saved device h100-sxm-custom"), "{said}");
    assert_eq!(
        files(&repo.join("catalog")),
        before,
        "built-in files changed"
    );
    let text = std::fs::read_to_string(user.join("hardware/user.toml")).unwrap();
    assert!(text.contains("id = \"h100-sxm-custom\""), "{text}");

    // The config directory pointed at the checkout itself: its catalog/ is
    // the shipped one, which adds no entry of the user's; the copy goes to
    // a new file beside the built-in ones, which stay as they were.
    unsafe { std::env::set_var("RIDGELINE_CONFIG_DIR", &repo) };
    let mut a = app_from_env(&TuiOptions::default()).unwrap();
    assert_eq!(a.catalog_dir, Some(repo.join("catalog")));
    assert!(
        a.catalog.diagnostics.is_empty(),
        "{:?}",
        a.catalog.diagnostics
    );
    let said = save_a_copy_of_h100(&mut a);
    assert!(said.contains("saved device h100-sxm-custom"), "{said}");
    let after: Vec<_> = files(&repo.join("catalog"))
        .into_iter()
        .filter(|(p, _)| p != Path::new("hardware/user.toml"))
        .collect();
    assert_eq!(after, before, "built-in files changed");
    std::fs::remove_dir_all(&root).ok();
}
