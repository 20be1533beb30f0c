#!/usr/bin/env bash
# The layering rules of issue 43 (item 2) that Package.swift and the import
# lines must keep, checked by make lint:
#   - Documents and LiveQuery do not depend on DocumentFormats: not in their
#     targets' dependencies, and no Swift file of theirs imports it (document
#     kinds reach the query through LiveQuery's MetadataDocumentKinds);
#   - PackageFormat does not use the coordination protocol: no Swift file of
#     it names ItemLock or PresenterChannel (FileCoordination's
#     coordinatedSave takes the lock and tells the presenters around its save).
#   scripts/check-layers.sh [ROOT]   ROOT: the repository (by default this one); exits 1 naming each breach
set -euo pipefail
root="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
python3 - "$root" <<'PY'
import pathlib, re, sys

root = pathlib.Path(sys.argv[1])
breaches = []

def dependencies(manifest, target):
    """The names in the dependencies list of `.target(name: TARGET, ...)` in Package.swift."""
    match = re.search(r'\.target\(\s*name:\s*"%s"' % re.escape(target), manifest)
    if not match:
        breaches.append(f"Package.swift: no target {target}")
        return []
    start = manifest.find("dependencies:", match.end())
    if start < 0 or manifest.find(".target(", match.end(), start) >= 0:
        return []
    depth, end = 0, manifest.index("[", start)
    for index in range(end, len(manifest)):
        depth += {"[": 1, "]": -1}.get(manifest[index], 0)
        if depth == 0:
            return re.findall(r'"([^"]+)"', manifest[end:index])
    return []

manifest = (root / "Package.swift").read_text()
for target in ("DocumentObject", "LiveQuery"):
    if "DocumentFormats" in dependencies(manifest, target):
        breaches.append(f"Package.swift: target {target} depends on DocumentFormats")
    for source in sorted((root / "Sources" / target).rglob("*.swift")):
        for number, line in enumerate(source.read_text().splitlines(), 1):
            if re.match(r"\s*(@\w+\s+)*import\s+(\w+\s+)?DocumentFormats\b", line):
                breaches.append(f"{source.relative_to(root)}:{number}: imports DocumentFormats")
for source in sorted((root / "Sources" / "PackageFormat").rglob("*.swift")):
    for number, line in enumerate(source.read_text().splitlines(), 1):
        if re.search(r"\b(ItemLock|PresenterChannel)\b", line):
            breaches.append(f"{source.relative_to(root)}:{number}: uses the coordination protocol ({line.strip()})")

for breach in breaches:
    print(f"check-layers: {breach}", file=sys.stderr)
sys.exit(1 if breaches else 0)
PY
