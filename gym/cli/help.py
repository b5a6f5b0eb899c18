"""`python -m gym` and `--help` without composing the config: the help text read straight from its file.

Hydra's own help composes the whole config first (~1 s); this prints the same page in a few tens of
milliseconds. Anything beyond plain help (`--help task=...`, `--hydra-help`, `--cfg`) still goes to Hydra.
"""

from __future__ import annotations

from pathlib import Path

HELP_ARGS = ([], ["--help"], ["-h"])


def config_groups(conf_dir: Path) -> str:
    """`group: option, option, ...` per group users choose from (what Hydra's $APP_CONFIG_GROUPS lists)."""
    lines = []
    for folder in sorted(p for p in conf_dir.iterdir() if p.is_dir() and p.name != "hydra"):
        options = sorted(p.stem for p in folder.glob("*.yaml"))
        if options:
            lines.append(f"{folder.name}: {', '.join(options)}")
    return "\n".join(lines)


def help_text() -> str:
    import yaml

    from gym.core.paths import CONF_DIR

    page = yaml.safe_load((CONF_DIR / "hydra" / "help" / "gym.yaml").read_text(encoding="utf-8"))
    text = page["template"]
    for key in ("header", "footer", "app_name"):
        text = text.replace("${hydra.help.%s}" % key, str(page.get(key, "")))
    return text.replace("$APP_CONFIG_GROUPS", config_groups(CONF_DIR))
