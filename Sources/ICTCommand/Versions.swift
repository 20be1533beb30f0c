import ArgumentParser
import ConflictVersions
import DocumentFormats
import ICTKitTooling
import SystemSupport

extension Ict {
    /// `ict versions`: the current version of a document and its conflict versions.
    struct Versions: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "versions",
            abstract: "List a document's current version and the conflict copies sync tools left of it.",
            discussion: """
                Finds the conflict copies Syncthing, Nextcloud/ownCloud and Dropbox make, \
                by name, beside the document (a file or a package) and, for a package \
                synced as a folder, beside its entries (each set of entry copies is one \
                version). Number 0 is the current version; the others are numbered oldest \
                first, for 'ict resolve --keep N'. For .ict documents each version's fields \
                are read and what differs from the current one is shown. The fingerprint \
                printed last changes whenever the document or a version changes: pass it \
                to 'ict resolve --expect'. A version that cannot be read, is not of the \
                document's kind or is a symbolic link (it is listed, and never moved in) \
                is an error (exit status 1); so is a document that changed while it was \
                listed, or one named through a link. The document's state is printed \
                too: inConflict while conflict versions wait, editingDisabled when it is \
                read-only, else normal.
                """
        )

        @Argument(help: "The document (a file or a package).")
        var document: String

        @Flag(help: "Print one JSON document for programs (Schemas/cli/versions.schema.json).")
        var json = false

        func run() throws {
            let report = Self.report(json: json)
            let path = DocumentSupport.trimmingTrailingSlashes(document)
            report.fields.path = path
            let listing: VersionListing
            let fingerprint: String
            let state: DocumentItemState
            do {
                let before = try VersionFingerprint.ofItem(at: path)
                listing = try VersionListing(path: path)
                state = try DocumentItemState(ofItemAt: path)
                fingerprint = try VersionFingerprint.ofItem(at: path)
                if fingerprint != before {
                    throw report.fail(Problem(path: path, "the document or a version changed while it was listed; list it again"))
                }
            } catch let error as DocumentVersionError {
                throw report.fail(Problem(path: error.pathText, location: error.entry.isEmpty ? .none : .entry(error.entry), error.message))
            }
            for problem in listing.problems { report.add(problem) }
            report.fields.fingerprint = fingerprint
            report.fields.versions = listing.entries.map(VersionListing.JSONForm.init)
            report.fields.state = state.names
            if !json {
                var output = StandardOutput()
                output.write(Self.text(listing, state: state, fingerprint: fingerprint))
                output.flush()
            }
            try report.finish()
        }

        /// The listing for people, its names and fields with control characters escaped (`TerminalText`).
        static func text(_ listing: VersionListing, state: DocumentItemState, fingerprint: String) -> String {
            var lines: [String] = []
            for entry in listing.entries {
                let version = entry.version
                var line = "\(entry.number)  \(VersionListing.sourceText(version))"
                if let name = version.conflictName {
                    line += ", \(name.date)"
                    if let device = name.device { line += ", device \(device)" }
                }
                lines += [line, "    \(RawFileName.escaped(version.pathText))"]
                if let fields = entry.fields {
                    lines.append(
                        "    display name: \(fields.displayName ?? "none"); names: \(fields.firstName ?? "none") \(fields.lastName ?? "none"); "
                            + "favourite number: \(fields.favoriteNumber.map(DocumentInspection.number) ?? "none"); "
                            + "photo: \(entry.photoSize.map { "\($0.width)×\($0.height)" } ?? "none")")
                }
                if entry.number > 0, listing.isICTDocument, entry.fields != nil {
                    lines.append("    differs in: \(entry.differences.isEmpty ? "nothing" : entry.differences.joined(separator: ", "))")
                }
            }
            if listing.entries.count == 1 { lines.append("no conflict versions") }
            lines.append("state: \(state)")
            lines.append("fingerprint: \(fingerprint)")
            // Each line is one line: a control character in it came from a name or a field.
            return lines.map { TerminalText.escaped($0) + "\n" }.joined()
        }
    }
}

extension Ict.Versions: TypedReportingCommand {
    static let reportName = "versions"

    /// `Schemas/cli/versions.schema.json`.
    struct Fields: ReportFields {
        /// The document, without trailing slashes.
        var path: String?
        /// What `--expect` of `ict resolve` takes.
        var fingerprint: String?
        /// The current version (number 0) and the conflict versions.
        var versions: [VersionListing.JSONForm]?
        /// The document's state: `inConflict`, `editingDisabled`.
        var state: [String]?
    }
}
