import FileCoordination
import PackageFormat
import SystemSupport

/// `ict convert` between a package directory and a zip of it.
package enum PackageConversion {
    /// Zips the package at `input` to `output`, by default `INPUT.zip`
    /// beside it; the zip's top-level directory is the package's name.
    /// Returns the zip's path. On a terminal, a run over a second shows
    /// `zip: done/total entries` on standard error, erased at the end.
    @discardableResult
    package static func zip(packageAt input: String, to output: String?) throws(DocumentPackageError) -> String {
        let packagePath = DocumentSupport.trimmingTrailingSlashes(input)
        var progress = ProgressReporter("zip", total: nil, unit: "entries")
        defer { progress.clear() }
        let package = try PackageWrapper(readingFrom: packagePath, mode: .lazy)
        let destination = output ?? packagePath + ".zip"
        try PackageZipArchive.write(package, to: destination, rootName: package.fileName!) { _, total in
            progress.total = total
            progress.advance()
        }
        return destination
    }

    /// Restores the package in the zip at `input` to `output`, by default
    /// beside the zip under the zip's top-level package name (else the zip's
    /// name without `.zip`). An existing item there is an error, never replaced.
    /// Returns the package's path. On a terminal, a run over a second shows
    /// `restore: done/total files` on standard error, erased at the end.
    @discardableResult
    package static func unzip(_ input: String, to output: String?) throws(DocumentPackageError) -> String {
        var progress = ProgressReporter("restore", total: nil, unit: "files")
        defer { progress.clear() }
        let package = try PackageZipArchive.read(at: input) { _, total in
            progress.total = total
            progress.advance()
        }
        let target = output.map(DocumentSupport.trimmingTrailingSlashes) ?? defaultPackagePath(forZip: input, packageName: package.preferredFileName)
        try package.coordinatedSave(to: target, options: PackageSaveOptions(replacingExisting: false))
        return target
    }

    private static func defaultPackagePath(forZip zip: String, packageName: String?) -> String {
        let zipName = PathName.split(zip).name
        let baseName = zipName.hasSuffix(".zip") && zipName.count > 4 ? String(zipName.dropLast(4)) : zipName + ".package"
        return PathName.folderPrefix(of: zip) + (packageName ?? baseName)
    }
}
