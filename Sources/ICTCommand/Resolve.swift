import ArgumentParser
import ConflictVersions
import DocumentFormats
import ICTKitTooling
import SystemSupport

extension Ict {
    /// `ict resolve`: make one version current and remove the others.
    struct Resolve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resolve",
            abstract: "Make one version of a document current and remove the other conflict versions.",
            discussion: """
                --keep names the version as 'ict versions' numbers it (0 or 'current' \
                for the document as it is) or by the path of a conflict copy. The \
                version is moved in safely (a package written beside and swapped in \
                with one rename, a file renamed over the document): at every moment \
                the document is the old version or the kept one. Then every other \
                conflict version is removed, unless --keep-others; the document itself \
                is never removed. With --expect FINGERPRINT (printed by 'ict versions'), \
                nothing is done when the document or any version changed since it was \
                listed. A kept version that cannot be read as the document's kind, or \
                that is a symbolic link (or holds one among its entry copies), is \
                refused, and nothing is changed: a link in the document's place would \
                make later edits write through it. A document named through a link is \
                refused too: name the item it points to.
                """
        )

        @Argument(help: "The document (a file or a package).")
        var document: String

        @Option(help: "The version to keep: current, a number from 'ict versions', or a conflict copy's path.")
        var keep: String

        @Flag(help: "Leave the other conflict versions in place.")
        var keepOthers = false

        @Option(help: "The fingerprint 'ict versions' printed; refuse if the document or a version changed since.")
        var expect: String?

        @Flag(help: "Print one JSON document for programs (Schemas/cli/resolve.schema.json).")
        var json = false

        @OptionGroup var links: LinkOptions

        func run() throws {
            let report = Self.report(json: json)
            let path = links.documentPath(DocumentSupport.trimmingTrailingSlashes(document))
            report.fields.path = path
            // Held from the fingerprint check to the last removal: no other ict run changes the document in between.
            let lock = try ItemLockSupport.exclusive(path, report: report)
            defer { lock?.release() }
            do {
                if let expect {
                    let now = try VersionFingerprint.ofItem(at: path)
                    guard now == expect else {
                        throw report.fail(
                            Problem(
                                path: path,
                                "the document or a version changed since it was listed (fingerprint \(now), expected \(expect)); nothing was changed; run 'ict versions' again"
                            ))
                    }
                }
                let listing = try VersionListing(path: path)
                guard let kept = chosen(in: listing) else {
                    throw report.fail(
                        Problem(
                            path: path, "no version \(keep): 'ict versions \(path)' lists \(listing.entries.count - 1) conflict version(s), numbered from 1"))
                }
                if kept.number > 0, let problem = kept.problem {
                    throw report.fail(Problem(path: problem.path, location: problem.location, "refusing to keep it: " + problem.message))
                }
                report.fields.kept = kept.number
                var removed: [String] = []
                try kept.version.replaceItem(at: path, options: .byMoving)
                if !keepOthers {
                    removed = listing.entries.dropFirst().filter { $0.number != kept.number }.map { entry in
                        if entry.version.isRebuiltPackage { return "\(path) (\(VersionListing.sourceText(entry.version)))" }
                        return entry.version.entrySwaps.isEmpty
                            ? entry.version.pathText : entry.version.entrySwaps.map { "\(path)/\($0.conflictEntryPathText)" }.joined(separator: ", ")
                    }
                    try DocumentVersion.removeOtherVersionsOfItem(at: path)
                }
                report.fields.removed = removed
                if !json {
                    StandardOutput.printLine(
                        "\(path): kept version \(kept.number) (\(VersionListing.sourceText(kept.version)))"
                            + (removed.isEmpty ? "" : "; removed \(removed.count) other version(s)"))
                }
            } catch let error as DocumentVersionError {
                throw report.fail(Problem(path: error.pathText, location: error.entry.isEmpty ? .none : .entry(error.entry), error.message))
            }
            try report.finish()
        }

        /// The version `--keep` names.
        private func chosen(in listing: VersionListing) -> VersionListing.Entry? {
            if keep == "current" { return listing.entries[0] }
            if let number = Int(keep) { return listing.entries.first { $0.number == number } }
            // The same file however it is named: ./x, a/../x, an absolute path.
            guard let wanted = Self.identity(keep) else { return nil }
            return listing.entries.first {
                $0.number > 0 && $0.version.entrySwaps.isEmpty && !$0.version.isRebuiltPackage && Self.identity($0.version.pathText) == wanted
            }
        }

        /// The device and inode of the item at `path` (not following a last link), or nil.
        private static func identity(_ path: String) -> [UInt64]? {
            guard let info = try? FileInfo.of(path: path, followingLink: false) else { return nil }
            return [info.device, info.inode]
        }
    }
}

extension Ict.Resolve: TypedReportingCommand {
    static let reportName = "resolve"

    /// `Schemas/cli/resolve.schema.json`.
    struct Fields: ReportFields {
        /// The document, without trailing slashes.
        var path: String?
        /// The number of the version kept, as `ict versions` numbers it.
        var kept: Int?
        /// The versions removed: a conflict copy's path, or an entry copy's entries joined by ", ".
        var removed: [String]?
    }
}
