"""The PEP 517 build backend of the ictkit package: standard library only, so `pip install ./python` works offline.

It builds ICTKit's C library (the Swift package one folder up, product ICTKitC) in release with the Swift runtime
and Foundation linked statically (--static-swift-stdlib), so the module imports with the Swift toolchain out of
reach; compiles the extension src/ictkit/_ictkit.c against include/ictkit.h; and packs both with the Python
sources into a wheel whose extension finds the library beside it ($ORIGIN).
Environment: SWIFT (the swift command), CC (the C compiler; else cc, else clang).
"""

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

PYTHON_FOLDER = Path(__file__).resolve().parents[1]
REPOSITORY = PYTHON_FOLDER.parent
SCRATCH = REPOSITORY / ".build-python"


def _project():
    with open(PYTHON_FOLDER / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]


def _run(arguments, **options):
    print("ictkit build:", " ".join(str(argument) for argument in arguments), file=sys.stderr, flush=True)
    subprocess.run([str(argument) for argument in arguments], check=True, **options)


def _library():
    """Builds libICTKitC.so and returns its path."""
    if not (REPOSITORY / "Package.swift").is_file():
        raise RuntimeError(f"ictkit builds from the ICTKit repository: no Package.swift in {REPOSITORY}")
    swift = os.environ.get("SWIFT", "swift")
    found = shutil.which(swift)
    if not found:
        raise RuntimeError(f"{swift} not found: the Swift toolchain builds libICTKitC.so (set SWIFT)")
    _run([swift, "build", "-c", "release", "--product", "ICTKitC", "--scratch-path", SCRATCH], cwd=REPOSITORY)
    # SwiftPM links a dynamic library product against the toolchain's shared Swift runtime whatever the flags
    # (--static-swift-stdlib applies to executables; -Xswiftc -static-stdlib does not reach its link): the same
    # objects are linked again here with -static-stdlib, which takes the runtime and FoundationEssentials from the
    # toolchain's static archives; what is left is the system's libxml2 and C and C++ libraries.
    library = SCRATCH / "release" / "libICTKitC-static.so"
    xml2 = []
    if shutil.which("pkg-config"):
        xml2 = subprocess.run(["pkg-config", "--libs", "libxml-2.0"], capture_output=True, text=True).stdout.split()
    # FoundationEssentials' archive needs _FoundationCollections' and _FoundationCShims' after it; --no-undefined
    # makes a missing one a link error here rather than an ImportError later.
    static_runtime = Path(found).resolve().parent.parent / "lib" / "swift_static" / "linux"
    _run([Path(found).resolve().parent / "swiftc", "-emit-library", "-static-stdlib", "-module-name", "ICTKitC",
          "-o", library, "-Xlinker", "--gc-sections", "-Xlinker", "--no-undefined",
          f"@{SCRATCH / 'release' / 'ICTKitC.product' / 'Objects.LinkFileList'}"]
         + (xml2 or ["-lxml2"])
         + [f"-L{static_runtime}", "-lFoundationEssentials", "-l_FoundationCollections", "-l_FoundationCShims"])
    return library


def _compiler():
    for candidate in (os.environ.get("CC"), "cc", "clang", "gcc"):
        if candidate and shutil.which(candidate.split()[0]):
            return candidate.split()
    raise RuntimeError("no C compiler found (set CC)")


def _build(staging):
    """Lays out the package in `staging`/ictkit."""
    package = staging / "ictkit"
    shutil.copytree(PYTHON_FOLDER / "src" / "ictkit", package, ignore=shutil.ignore_patterns("*.c", "__pycache__"))
    library = package / "libICTKitC.so"
    shutil.copyfile(_library(), library)
    if shutil.which("strip"):
        _run(["strip", "--strip-debug", library])
    extension = package / ("_ictkit" + sysconfig.get_config_var("EXT_SUFFIX"))
    _run(_compiler() + [
        "-shared", "-fPIC", "-O2", "-Wall",
        "-I", sysconfig.get_paths()["include"], "-I", REPOSITORY / "Sources" / "ICTKitC" / "include",
        PYTHON_FOLDER / "src" / "ictkit" / "_ictkit.c",
        PYTHON_FOLDER / "src" / "ictkit" / "_archive.c",
        PYTHON_FOLDER / "src" / "ictkit" / "_coredata.c",
        "-L", package, "-lICTKitC", "-Wl,-rpath,$ORIGIN", "-o", extension,
    ])


def _tag():
    version = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{version}-{version}-{platform}"


def _metadata(project):
    readme = (PYTHON_FOLDER / project["readme"]).read_text(encoding="utf-8")
    return (
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
        f"Summary: {project['description']}\nRequires-Python: {project['requires-python']}\n"
        f"Description-Content-Type: text/markdown\n\n{readme}"
    )


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project = _project()
    info = Path(metadata_directory) / f"{project['name']}-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(_metadata(project), encoding="utf-8")
    return info.name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    name, version, tag = project["name"], project["version"], _tag()
    staging = PYTHON_FOLDER / "build" / "wheel"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    _build(staging)
    info = f"{name}-{version}.dist-info"
    files = {}
    for path in sorted((staging / "ictkit").rglob("*")):
        if path.is_file():
            files[path.relative_to(staging).as_posix()] = path.read_bytes()
    files[f"{info}/METADATA"] = _metadata(project).encode()
    files[f"{info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: ictkit_build\nRoot-Is-Purelib: false\nTag: {tag}\n").encode()
    record = [_record_line(file, data) for file, data in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel_name = f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for file, data in files.items():
            info_entry = zipfile.ZipInfo(file)
            info_entry.external_attr = (0o755 if file.endswith(".so") else 0o644) << 16
            info_entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info_entry, data)
    return wheel_name
