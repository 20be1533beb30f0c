import Foundation
import PackageFormat

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let fuzzPackageLimits = DocumentPackageLimits(maximumEntryCount: 2_000, maximumDepth: 32, maximumTotalSize: 64 << 20)

/// Zip restoring: a zip the reader takes is saved into a fresh folder;
/// nothing may land outside that folder, no link may point out of it, and
/// reading the saved package gives the same tree.
func fuzzZipRestore(_ bytes: [UInt8]) {
    let root = "\(scratchFolder)/zip"
    removeItem(root)
    mkdir(root, 0o700)
    let zipPath = "\(root)/input.zip"
    let restored = "\(root)/out/Package"
    writeFile(zipPath, bytes)
    mkdir("\(root)/out", 0o700)
    guard let package = try? PackageZipArchive.read(at: URL(filePath: zipPath), limits: fuzzPackageLimits),
        package.kind == .directory
    else { return }
    do {
        try package.save(to: URL(filePath: restored), options: PackageSaveOptions(flushingToDisk: false))
    } catch {
        return
    }
    let top = (try? FileManager.default.contentsOfDirectory(atPath: root))?.sorted() ?? []
    require(top == ["input.zip", "out"], "restoring wrote beside the package: \(top)")
    let outside = (try? FileManager.default.contentsOfDirectory(atPath: "\(root)/out")) ?? []
    require(outside == ["Package"], "restoring wrote beside the package: \(outside)")
    requireLinksInside(restored, relativeFolder: [])
    do {
        let again = try PackageWrapper(readingFrom: URL(filePath: restored), mode: .eager, limits: fuzzPackageLimits)
        require(sameTree(package, again), "the restored package differs from the zip's tree")
    } catch {
        require(false, "the restored package cannot be read: \(error)")
    }
}

/// Every symbolic link under `folder` resolves, by its text alone, to a
/// place inside the package.
private func requireLinksInside(_ folder: String, relativeFolder: [String]) {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    for name in names {
        let path = "\(folder)/\(name)"
        if isSymbolicLink(path) {
            let destination = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? ""
            require(!destination.hasPrefix("/"), "link \(path) points to the absolute \(destination)")
            var components = relativeFolder
            for part in destination.split(separator: "/", omittingEmptySubsequences: true) {
                switch part {
                case ".": continue
                case "..":
                    require(!components.isEmpty, "link \(path) points out of the package: \(destination)")
                    components.removeLast()
                default: components.append(String(part))
                }
            }
        } else {
            var status = stat()
            if lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
                requireLinksInside(path, relativeFolder: relativeFolder + [name])
            }
        }
    }
}

/// Same kinds, names, contents and link destinations throughout.
private func sameTree(_ a: PackageWrapper, _ b: PackageWrapper) -> Bool {
    guard a.kind == b.kind else { return false }
    switch a.kind {
    case .regularFile: return (try? a.contents()) == (try? b.contents())
    case .symbolicLink: return a.symbolicLinkDestination == b.symbolicLinkDestination
    case .directory:
        let aNames = a.children.compactMap(\.fileName).sorted()
        let bNames = b.children.compactMap(\.fileName).sorted()
        guard aNames == bNames else { return false }
        return aNames.allSatisfy { name in sameTree(a.child(named: name)!, b.child(named: name)!) }
    }
}
