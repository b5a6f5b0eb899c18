"""Extra CA certificates inside every build: for networks whose HTTPS goes through an intercepting proxy.

`runtime.extra_ca_certs` names PEM files (a corporate proxy's CA, or the host's whole bundle such as
/etc/ssl/certs/ca-certificates.crt). Each build gets them in `.gym-ca/` of its context and, after every
`FROM`, the lines of `ca_snippet`: the certificates join the image's trust store (update-ca-certificates
where the image has it, else appended to the system bundle) and the variables pip, requests, curl, uv
and node read point at that bundle. A later `apt-get install ca-certificates` keeps them (they sit in
/usr/local/share/ca-certificates).
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from gym.core.errors import GymError
from gym.runtime.base import RuntimeSettings

CA_DIR = ".gym-ca"
BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
CA_ENV = {name: BUNDLE for name in ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
                                    "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO")}


def check_ca_files(settings: RuntimeSettings) -> None:
    for path in settings.extra_ca_certs:
        if not Path(path).expanduser().is_file():
            raise GymError(f"runtime.extra_ca_certs: {path} is not a file (a PEM certificate or bundle)")


def write_ca_files(settings: RuntimeSettings, context: Path) -> None:
    """The certificates into the build context (nothing when there are none)."""
    if not settings.extra_ca_certs:
        return
    check_ca_files(settings)
    target = context / CA_DIR
    target.mkdir(exist_ok=True)
    for number, path in enumerate(settings.extra_ca_certs):
        shutil.copyfile(Path(path).expanduser(), target / f"gym-extra-{number}.crt")


def ca_snippet(settings: RuntimeSettings) -> list[str]:
    """Dockerfile lines that trust the certificates (to follow each FROM); [] when there are none."""
    if not settings.extra_ca_certs:
        return []
    install = ("mkdir -p /etc/ssl/certs && "
               "if command -v update-ca-certificates >/dev/null 2>&1; then update-ca-certificates >/dev/null 2>&1; "
               f"else cat /usr/local/share/ca-certificates/gym/*.crt >> {BUNDLE}; fi")
    env = " ".join(f"{name}={value}" for name, value in CA_ENV.items())
    return [f"COPY {CA_DIR}/ /usr/local/share/ca-certificates/gym/", f"RUN {install}", f"ENV {env}"]


def ca_files_digest_lines(settings: RuntimeSettings) -> list[str]:
    """The certificates' hashes (image tags change when the certificates do)."""
    check_ca_files(settings)
    return [hashlib.sha256(Path(p).expanduser().read_bytes()).hexdigest() for p in settings.extra_ca_certs]
