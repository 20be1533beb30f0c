import PackageFormat
import SystemSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A whole package made from the entries of a package on disk and their
/// conflict copies: which entry on disk holds each entry of it.
struct PackageRebuild: Hashable, Sendable {
    /// Each entry of the rebuilt package (`a/b`) → the entry on disk that
    /// holds it: itself, or a conflict copy of it.
    var sources: [String: String]
    /// The manifest whose generation is rebuilt; nil for the package as it
    /// is on disk, conflict copies and transfers left out.
    var manifest: PackageManifest?
    /// The manifest's conflict copy this generation was read from, and its
    /// path inside the package; nil for the manifest itself and for the package as it is.
    var manifestCopy: ConflictName?
    var manifestCopyPath: String?

    init(sources: [String: String], manifest: PackageManifest?, manifestCopy: ConflictName? = nil, manifestCopyPath: String? = nil) {
        self.sources = sources
        self.manifest = manifest
        self.manifestCopy = manifestCopy
        self.manifestCopyPath = manifestCopyPath
    }

    /// The conflict copies it takes entries from.
    var copiesUsed: Set<String> { Set(sources.filter { $0.key != $0.value }.map(\.value)) }
}

/// The versions of a package that a sync engine carried file by file, told
/// by its manifest (`PackageManifest`, `PackageConsistency`): each save whose
/// entries are all still there — as entries or as conflict copies of them —
/// is a version rebuilt whole; so is the package as it is, when it holds
/// content no such save does.
enum PackageGenerations {
    /// What the versions of the package at `path` are.
    struct Found {
        /// The version the package opens as: the manifest's save when it can
        /// be rebuilt, else the package as it is. Nil when the package is
        /// whole without conflict copies, or has no manifest (then the
        /// conflict copies, if any, are versions as `PackageEntryConflicts` groups them).
        var current: PackageRebuild?
        /// The conflict versions: every version but the current one when the
        /// package as it is is the manifest's save; all of them (the current
        /// one too) when it is not, so that the user picks which to keep.
        var conflicts: [PackageRebuild]
        /// The conflict copies no version takes an entry from.
        var unusedCopies: Set<String>
    }

    /// The versions of the package at `path`, whose consistency is `consistency`.
    ///
    /// - Throws: `DocumentVersionError` `.package` naming an entry that cannot be read.
    static func find(inPackageAt path: String, consistency: PackageConsistency) throws(DocumentVersionError) -> Found? {
        guard consistency.state != .unmanifested, !consistency.isWholeWithoutConflicts,
            // A transfer under way is not a conflict yet: the engine is still bringing entries.
            consistency.transfers.isEmpty
        else { return nil }
        var copiesOf: [String: [String]] = [:]
        var manifestCopies: [(String, ConflictName)] = []
        for copy in consistency.conflictCopies {
            let (folder, name) = PathName.split(copy, bareNameFolder: "")
            guard let conflict = ConflictName(parsing: name) else { continue }
            let original = folder.isEmpty ? conflict.originalName : folder + "/" + conflict.originalName
            if original == PackageManifest.fileName {
                manifestCopies.append((copy, conflict))
            } else {
                copiesOf[original, default: []].append(copy)
            }
        }
        var probe = Probe(packagePath: path)
        var generations: [PackageRebuild] = []
        var current: PackageRebuild?
        if let manifest = consistency.manifest, let sources = try probe.rebuild(manifest, copiesOf: copiesOf) {
            current = PackageRebuild(sources: sources, manifest: manifest)
            generations.append(current!)
        }
        for (copy, conflict) in manifestCopies {
            guard let manifest = try? PackageManifest.read(fromPackageAt: path, pathInPackage: copy),
                let sources = try probe.rebuild(manifest, copiesOf: copiesOf),
                !generations.contains(where: { $0.sources == sources })
            else { continue }
            generations.append(PackageRebuild(sources: sources, manifest: manifest, manifestCopy: conflict, manifestCopyPath: copy))
        }
        let asItIs = PackageRebuild(
            sources: Dictionary(uniqueKeysWithValues: consistency.presentEntries.map { ($0, $0) }), manifest: nil)
        let asItIsIsASave = generations.contains { $0.sources == asItIs.sources }
        var conflicts = generations
        if let manifestSave = current, manifestSave.sources == asItIs.sources {
            // The package as it is is the manifest's save: the other saves are its conflicts.
            conflicts.removeFirst()
        } else if !asItIsIsASave, !asItIs.sources.isEmpty {
            conflicts.append(asItIs)
        }
        if current == nil { current = asItIs }
        var unused = Set(consistency.conflictCopies)
        for version in conflicts { unused.subtract(version.copiesUsed) }
        unused.subtract(manifestCopies.map(\.0))
        return Found(current: current, conflicts: conflicts, unusedCopies: unused)
    }

    /// The entries on disk, each listed once and read at most once.
    struct Probe {
        let packagePath: String
        private var found: [String: PackageManifest.Entry?] = [:]
        private var digests: [String: [UInt8]?] = [:]

        init(packagePath: String) { self.packagePath = packagePath }

        /// For each entry `manifest` lists, the entry on disk that holds it
        /// (itself first, then its conflict copies); nil when one is in none.
        mutating func rebuild(_ manifest: PackageManifest, copiesOf: [String: [String]]) throws(DocumentVersionError) -> [String: String]? {
            var sources: [String: String] = [:]
            for (entryPath, listed) in manifest.entries {
                if listed.kind == .folder {
                    // A folder is made on the way to its entries; its own entry only keeps an empty one.
                    if try entry(entryPath)?.kind == .folder { sources[entryPath] = entryPath }
                    continue
                }
                var holder: String?
                for candidate in [entryPath] + (copiesOf[entryPath] ?? []) where try holds(candidate, listed) {
                    holder = candidate
                    break
                }
                guard let holder else { return nil }
                sources[entryPath] = holder
            }
            return sources
        }

        /// Whether the entry on disk at `candidate` is `listed`: a file by its
        /// size and digest (always read: conflicts are rare, and a copy may
        /// share a size and time with the entry), a link by its destination.
        private mutating func holds(_ candidate: String, _ listed: PackageManifest.Entry) throws(DocumentVersionError) -> Bool {
            guard var onDisk = try entry(candidate), onDisk.kind == listed.kind else { return false }
            if onDisk.kind == .file, onDisk.size == listed.size {
                if digests[candidate] == nil { digests[candidate] = try PackageConsistency.digest(packagePath, candidate) }
                onDisk.digest = digests[candidate]!
            }
            return onDisk.sameContent(as: listed)
        }

        private mutating func entry(_ entryPath: String) throws(DocumentVersionError) -> PackageManifest.Entry? {
            if let known = found[entryPath] { return known }
            let entry: PackageManifest.Entry?
            do throws(DocumentPackageError) {
                entry = try PackageManifest.entryOnDisk(packagePath + "/" + entryPath, pathInPackage: entryPath, digesting: false)
            } catch {
                throw DocumentVersionError(.package, pathText: packagePath, entry: entryPath, error.message)
            }
            found[entryPath] = entry
            return entry
        }
    }

    /// The name a rebuilt version is listed by: the manifest copy's, or one
    /// made from the manifest (its save's date in UTC, its saving computer)
    /// or, for the package as it is, from the newest entry's time; the tool
    /// is that of the package's conflict copies (Syncthing when none says).
    static func conflictName(
        of version: PackageRebuild, itemName: String, tool: SyncTool, newest: Date
    ) -> ConflictName {
        if var name = version.manifestCopy {
            name.originalName = itemName
            return name
        }
        let date = version.manifest?.savedDate ?? newest
        return ConflictName(
            originalName: itemName, tool: tool, date: ConflictNameDate(utc: date), device: version.manifest?.savingComputer)
    }
}

extension ConflictNameDate {
    /// `date`'s day and time in UTC (proleptic Gregorian; Howard Hinnant's `civil_from_days`).
    init(utc date: Date) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        // Every field is in range by construction.
        self.init(year: year, month: month, day: day, time: (secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60))!
    }
}
