"""Stand-in base images built from distribution archives, for `FROM` images no registry can give.

`stand_in_for("python:3.13-slim-bookworm")` says what would stand in (distribution, release, Python and
where it comes from) or None for an image gym cannot re-create; `ensure_stand_in` builds it once:
mmdebstrap makes the release's minimal root filesystem from the archive (kept as a tarball in the
cache), the runtime imports it, and a small Dockerfile adds what the named image has on top (Python,
pip, `python` on PATH). Images are tagged by a hash of everything that made them, so a cached one is
reused and a changed recipe builds anew.

Faithful means the same distribution release and the same Python minor version as the named image: a
Python the release's archive does not carry is built from CPython's source as Debian ships it (the
orig tarball of the release that carries it), once, inside the image build. `ghcr.io/astral-sh/uv:<version>`
(an empty image holding /uv and /uvx, which Dockerfiles `COPY --from`) is re-made from uv's PyPI wheel of
that version.
"""

from __future__ import annotations

import gzip
import hashlib
import re
import shutil
import subprocess
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from gym.runtime.base import BuildFailed, ContainerRuntime, RuntimeSettings
from gym.runtime.trust import ca_files_digest_lines, ca_snippet, write_ca_files
from gym.runtime.uv import uv_binaries

DEBIAN_PYTHON = {"bullseye": "3.9", "bookworm": "3.11", "trixie": "3.13"}
DEBIAN_NUMBERS = {"11": "bullseye", "12": "bookworm", "13": "trixie"}
UBUNTU_PYTHON = {"xenial": "3.5", "bionic": "3.6", "focal": "3.8", "jammy": "3.10", "noble": "3.12"}
UBUNTU_NUMBERS = {"16.04": "xenial", "18.04": "bionic", "20.04": "focal", "22.04": "jammy", "24.04": "noble"}
# old releases: their release pocket alone is years behind, so their -updates and -security pockets are in the
# root filesystem's sources too (bionic's python3.7 is a 3.7.0 beta in the release pocket, 3.7.5 in -updates);
# their ubuntu-keyring writes apt's Trusted file, so the keyring is mmdebstrap's own (--keyring), not an apt
# option that the image would keep pointing outside it
UBUNTU_OLD = {"xenial", "bionic"}
# xenial's essential packages include systemd, whose set-up adds a user with chfn before libpam-runtime has
# written PAM's common-* files: stand-ins for them while the essential packages are set up, PAM's own after
XENIAL_HOOKS = ["--extract-hook=for kind in auth account session password; do "
                'echo "$kind required pam_permit.so" > "$1/etc/pam.d/common-$kind"; done',
                '--essential-hook=chroot "$1" pam-auth-update --package --force']
# python:X.Y and python:X.Y-slim without a release name: Docker's default Debian since August 2025
PYTHON_DEFAULT_RELEASE = "trixie"
# the release whose archive carries CPython X.Y's source (apt-get source pythonX.Y)
PYTHON_SOURCE = {version: release for release, version in DEBIAN_PYTHON.items()}
# uv's own image: /uv and /uvx on an empty base (its bare version tags; the -<distro> ones carry an OS too)
UV_IMAGE = re.compile(r"(?:ghcr\.io/)?astral-sh/uv:(\d+\.\d+\.\d+)")


@dataclass(frozen=True)
class StandIn:
    image: str  # the name the Dockerfile asks for
    distro: str  # debian | ubuntu
    release: str  # bookworm, noble, ...
    python: str | None = None  # X.Y for python:* images
    python_from: str | None = None  # archive | source
    slim: bool = True  # python:X.Y (not -slim) carries build tools as buildpack-deps does
    uv: str | None = None  # ghcr.io/astral-sh/uv:<uv>: that uv alone, no distribution

    def describe(self) -> str:
        if self.uv:
            return f"uv {self.uv} from its PyPI wheel (static /uv, /uvx on an empty image)"
        what = f"{self.distro} {self.release} (minbase from the archive)"
        if self.python:
            what += (f" + Python {self.python} from {self.release}'s archive" if self.python_from == "archive"
                     else f" + CPython {self.python} built from source")
        return what


def stand_in_for(image: str) -> StandIn | None:
    """The stand-in for a registry image name, or None when gym does not know how to re-create it."""
    uv = UV_IMAGE.fullmatch(image.strip())
    if uv:
        return StandIn(image, "scratch", "", uv=uv[1])
    name, _, tag = image.strip().partition(":")
    name = name.removeprefix("docker.io/").removeprefix("library/")
    tag = tag or "latest"
    if name == "debian":
        release = tag.removesuffix("-slim").split(".")[0]
        release = DEBIAN_NUMBERS.get(release, release)
        return StandIn(image, "debian", release) if release in DEBIAN_PYTHON else None
    if name == "ubuntu":
        release = UBUNTU_NUMBERS.get(tag, tag)
        return StandIn(image, "ubuntu", release) if release in UBUNTU_PYTHON else None
    if name == "python":
        found = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?(-slim)?(?:-(\w+))?", tag)
        if not found:
            return None
        python, slim, release = f"{found[1]}.{found[2]}", bool(found[3]), found[4] or PYTHON_DEFAULT_RELEASE
        if release not in DEBIAN_PYTHON or python not in PYTHON_SOURCE:
            return None
        python_from = "archive" if DEBIAN_PYTHON[release] == python else "source"
        return StandIn(image, "debian", release, python, python_from, slim)
    return None


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:12]


def rootfs_image(runtime: ContainerRuntime, distro: str, release: str) -> str:
    """The release's minimal root filesystem as a local image (built once; its tarball kept in the cache)."""
    settings = runtime.settings
    archive = settings.debian_archive if distro == "debian" else settings.ubuntu_archive
    args = ["--variant=minbase", "--include=ca-certificates" + (",apt" if distro == "ubuntu" else "")]
    keyring = Path(ubuntu_keyring(settings)) if distro == "ubuntu" else None
    if keyring is not None:
        args.append("--components=main,universe")
    old = distro == "ubuntu" and release in UBUNTU_OLD
    mirrors = [archive] + ([f"deb {archive} {release}-{pocket} main universe" for pocket in ("updates", "security")]
                           if old else [])
    args += XENIAL_HOOKS if old and release == "xenial" else []
    digest = _digest(*mirrors, *args, *(["mmdebstrap --keyring"] if old else []),
                     *([hashlib.sha256(keyring.read_bytes()).hexdigest()] if keyring else []))
    tag = f"localhost/gym-base/{distro}:{release}-{digest}"
    if runtime.image_exists(tag):
        return tag
    tarball = settings.cache() / "rootfs" / f"{distro}-{release}-{digest}.tar"
    if not tarball.exists():
        tarball.parent.mkdir(parents=True, exist_ok=True)
        partial = tarball.with_suffix(".partial.tar")
        with tempfile.TemporaryDirectory(prefix="gym-keyring-") as tmp:
            if keyring is not None:  # apt reads it as its own unprivileged user: a world-readable copy
                Path(tmp).chmod(0o755)
                readable = Path(tmp) / "ubuntu-archive-keyring.gpg"
                shutil.copyfile(keyring, readable)
                readable.chmod(0o644)
                args.append(f"--keyring={readable}" if old else f'--aptopt=Dir::Etc::Trusted "{readable}"')
            done = subprocess.run(["mmdebstrap", *args, release, str(partial), *mirrors], capture_output=True,
                                  text=True, errors="replace")
        if done.returncode != 0:
            raise BuildFailed(f"mmdebstrap {release} failed", (done.stderr or done.stdout)[-4000:])
        partial.rename(tarball)
    runtime.import_rootfs(tarball, tag, changes=['CMD ["bash"]', "ENV LANG=C.UTF-8"])
    return tag


def ubuntu_keyring(settings: RuntimeSettings) -> str:
    """The Ubuntu archive keyring: runtime.ubuntu_keyring, the host's, else the ubuntu-keyring package
    taken from the Ubuntu archive once (over its own mirror; set the knob to a checked copy to trust none)."""
    for path in (settings.ubuntu_keyring, "/usr/share/keyrings/ubuntu-archive-keyring.gpg"):
        if path and Path(path).expanduser().is_file():
            return str(Path(path).expanduser())
    cached = settings.cache() / "keyrings" / "ubuntu-archive-keyring.gpg"
    if cached.is_file():
        return str(cached)
    base = settings.ubuntu_archive.rstrip("/")
    with urllib.request.urlopen(f"{base}/dists/noble/main/binary-amd64/Packages.gz", timeout=120) as reply:
        index = gzip.decompress(reply.read()).decode("utf-8", "replace")
    stanza = re.search(r"^Package: ubuntu-keyring\n(?:.+\n)*?Filename: (\S+)", index, re.MULTILINE)
    if not stanza:
        raise BuildFailed("the Ubuntu archive's index has no ubuntu-keyring package")
    with tempfile.TemporaryDirectory() as tmp:
        deb = Path(tmp) / "keyring.deb"
        with urllib.request.urlopen(f"{base}/{stanza[1]}", timeout=120) as reply:
            deb.write_bytes(reply.read())
        subprocess.run(["dpkg-deb", "-x", str(deb), tmp], check=True, capture_output=True)
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes((Path(tmp) / "usr/share/keyrings/ubuntu-archive-keyring.gpg").read_bytes())
    return str(cached)


def _python_lines(spec: StandIn, archive: str) -> list[str]:
    if spec.python is None:
        return []
    extra = "" if spec.slim else " build-essential git curl wget procps"
    if spec.python_from == "archive":
        return [f"RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip python3-venv "
                f"python-is-python3{extra} && rm -rf /var/lib/apt/lists/* "
                "&& ln -sf /usr/bin/pip3 /usr/local/bin/pip",
                "ENV PIP_BREAK_SYSTEM_PACKAGES=1"]
    release = PYTHON_SOURCE[spec.python]
    deps = ("build-essential dpkg-dev gnupg libssl-dev zlib1g-dev libbz2-dev libreadline-dev libsqlite3-dev "
            "libffi-dev liblzma-dev libncursesw5-dev libgdbm-dev uuid-dev tk-dev xz-utils")
    return [f"RUN echo 'deb-src {archive} {release} main' > /etc/apt/sources.list.d/gym-src.list "
            f"&& apt-get update && apt-get install -y --no-install-recommends {deps} "
            f"&& mkdir /tmp/py && cd /tmp/py && apt-get source --download-only python{spec.python} "
            # bookworm ships .gz, trixie .xz and, since 3.13.5-2+deb13u5, its upstream signature (.asc) beside it
            "&& tar xf \"$(ls python*.orig.tar.* | grep -v '[.]asc$')\" && cd Python-* "
            # the compiler's words stay out of the build log unless it fails: then its last lines say why
            "&& (./configure --prefix=/usr/local --with-ensurepip=install && make -j\"$(nproc)\" && make install) "
            "> /tmp/python-build.log 2>&1 || { tail -n 60 /tmp/python-build.log; exit 1; } "
            "&& cd / && rm -rf /tmp/py /tmp/python-build.log /etc/apt/sources.list.d/gym-src.list "
            # slim images carry no compiler: the toolchain goes again (the libraries Python links stay)
            + ("&& (apt-get purge -y --auto-remove build-essential dpkg-dev gcc g++ make cpp || true) "
               if spec.slim else "")
            + "&& rm -rf /var/lib/apt/lists/*",
            f"RUN ln -sf /usr/local/bin/python{spec.python} /usr/local/bin/python "
            f"&& ln -sf /usr/local/bin/python{spec.python} /usr/local/bin/python3 "
            "&& ln -sf /usr/local/bin/pip3 /usr/local/bin/pip && python --version"]


def ensure_stand_in(runtime: ContainerRuntime, spec: StandIn, timeout: float | None = None) -> str:
    """The stand-in image for `spec`, built when absent (BuildFailed says why not); its tag."""
    if spec.uv:
        return _uv_stand_in(runtime, spec, timeout)
    base = rootfs_image(runtime, spec.distro, spec.release)
    lines = [f"FROM {base}", *ca_snippet(runtime.settings), *_python_lines(spec, runtime.settings.debian_archive), 'CMD ["bash"]']
    dockerfile = "\n".join(lines) + "\n"
    tag = _stand_in_tag(spec, dockerfile, *ca_files_digest_lines(runtime.settings))
    if runtime.image_exists(tag):
        return tag
    with tempfile.TemporaryDirectory() as tmp:
        context = Path(tmp)
        write_ca_files(runtime.settings, context)
        (context / "Dockerfile").write_text(dockerfile)
        runtime.build(context, tag, timeout=timeout, labels={"gym.stand-in-for": spec.image})
    return tag


def _stand_in_tag(spec: StandIn, *recipe: str) -> str:
    label = re.sub(r"[^a-z0-9._-]+", "-", spec.image.lower())
    return f"localhost/gym-standin/{label}:{_digest(*recipe)}"


def _uv_stand_in(runtime: ContainerRuntime, spec: StandIn, timeout: float | None) -> str:
    """uv's image as uv builds it (an empty image: /uv, /uvx; WORKDIR /io; uv the entrypoint), from the wheel."""
    dockerfile = 'FROM scratch\nCOPY uv uvx /\nWORKDIR /io\nENTRYPOINT ["/uv"]\n'
    tag = _stand_in_tag(spec, dockerfile, spec.uv)
    if runtime.image_exists(tag):
        return tag
    try:
        folder = uv_binaries(runtime.settings.cache(), spec.uv, static=True)
    except RuntimeError as exc:
        raise BuildFailed(f"stand-in for {spec.image}: {exc}") from None
    with tempfile.TemporaryDirectory() as tmp:
        context = Path(tmp)
        for name in ("uv", "uvx"):
            shutil.copy2(folder / name, context / name)
        (context / "Dockerfile").write_text(dockerfile)
        runtime.build(context, tag, timeout=timeout, labels={"gym.stand-in-for": spec.image})
    return tag
