#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArgumentParser
import ICTDocument
import OrderedCollections
import PropertyList

extension Ict {
    /// `ict list`: the `.ict` documents in a folder, by display name.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the .ict documents in a folder, sorted by display name.",
            discussion: """
                Reads only each document's metadata entry, and of it only the display \
                name and the thumbnail's PNG header; the data entry only with --data. \
                -r looks into subfolders (not into documents). On a \
                terminal, a progress bar on standard error follows long runs. A document \
                whose metadata cannot be read is reported on standard error and the exit \
                status is 1.
                """
        )

        @Argument(help: "The folder to list.")
        var directory: String

        @Flag(name: [.short, .customLong("recursive")], help: "Also list the documents in subfolders.")
        var recursive = false

        @Flag(help: "Also read each document's data entry and show its fields and photo size (much slower: the data holds the photo).")
        var data = false

        @Flag(help: "Print JSON for programs: one document {documents: [{path, displayName, thumbnail, data}]}.")
        var json = false

        struct Row {
            var path: String
            var displayName: String
            var thumbnailSize: (width: Int, height: Int)?
            /// With `--data`: the data's fields and the photo's size.
            var data: (fields: CTData, photoSize: (width: Int, height: Int)?)?
        }

        func run() throws {
            let locations = Self.documentLocations(in: DocumentSupport.trimmingTrailingSlashes(directory), recursive: recursive)
            var progress = ProgressReporter("list", total: locations.count, unit: "documents")
            var rows: [Row] = []
            var failed = false
            var folder = OpenFolder()
            for location in locations {
                do {
                    rows.append(try Self.row(location, in: folder.descriptor(for: location.folder), readingData: data))
                } catch {
                    progress.clear()
                    Diagnostics.printError(DocumentSupport.line(document: location.path, error))
                    failed = true
                }
                progress.advance()
            }
            folder.close()
            progress.clear()
            let keys = rows.map { $0.displayName.lowercased() }
            rows = rows.indices.sorted { (keys[$0], rows[$0].path) < (keys[$1], rows[$1].path) }.map { rows[$0] }
            var output = StandardOutput()
            if json {
                output.write(String(decoding: try JSONPropertyListWriter(prettyPrinted: true).encode(Self.jsonValue(rows)), as: UTF8.self))
                output.write("\n")
            } else {
                output.write(Self.table(rows, showingData: data))
            }
            output.flush()
            if failed { throw ExitCode.failure }
        }

        /// A document found in a folder.
        struct Location {
            var folder: String
            var name: String
            var path: String { folder == "/" ? "/" + name : "\(folder)/\(name)" }
        }

        /// The folder the documents being read are in, kept open so each
        /// document is opened relative to it (shorter lookups than full paths).
        struct OpenFolder {
            private var current: (path: String, descriptor: Int32)?

            /// A descriptor of `path`, or `AT_FDCWD` when it cannot be opened (full paths are used then).
            mutating func descriptor(for path: String) -> Int32 {
                if let current, current.path == path { return current.descriptor }
                close()
                let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                guard descriptor >= 0 else { return AT_FDCWD }
                current = (path, descriptor)
                return descriptor
            }

            mutating func close() {
                if let current { closeDescriptor(current.descriptor) }
                current = nil
            }
        }

        /// One document's row: from the metadata's summary, and with `readingData` from the decoded data entry.
        static func row(_ location: Location, in folder: Int32, readingData: Bool) throws(ICTDocumentError) -> Row {
            let path = location.path
            let summary = try ICTDocumentSummary(ofDocumentAt: folder == AT_FDCWD ? path : location.name, relativeTo: folder)
            var row = Row(path: path, displayName: summary.displayName, thumbnailSize: summary.thumbnailSize.map { ($0.width, $0.height) })
            if readingData {
                let fields = try ICTDocument(contentsOf: path).data()
                row.data = (fields, try fields.photo.map { bytes throws(ICTDocumentError) in try PNGImage.size(ofPNG: bytes) })
            }
            return row
        }

        static func sizeText(_ size: (width: Int, height: Int)?) -> String {
            size.map { "\($0.width)×\($0.height)" } ?? "none"
        }

        static func table(_ rows: [Row], showingData: Bool) -> String {
            var headers = ["NAME", "THUMBNAIL"]
            var columns = [rows.map(\.displayName), rows.map { sizeText($0.thumbnailSize) }]
            if showingData {
                headers += ["FIRST NAME", "LAST NAME", "FAVORITE", "PHOTO"]
                columns.append(rows.map { $0.data?.fields.firstName ?? "none" })
                columns.append(rows.map { $0.data?.fields.lastName ?? "none" })
                columns.append(rows.map { $0.data?.fields.favoriteNumber.map(DocumentInspection.number) ?? "none" })
                columns.append(rows.map { sizeText($0.data?.photoSize) })
            }
            let widths = zip(headers, columns).map { header, cells in max(cells.map(\.count).max() ?? 0, header.count) }
            func line(_ cells: [String], path: String) -> String {
                zip(cells, widths).map { cell, width in cell + String(repeating: " ", count: width - cell.count) + "  " }.joined() + path + "\n"
            }
            var text = line(headers, path: "PATH")
            for (index, row) in rows.enumerated() {
                text += line(columns.map { $0[index] }, path: row.path)
            }
            return text
        }

        static func jsonValue(_ rows: [Row]) -> PropertyListValue {
            .dictionary(["documents": .array(rows.map { row in
                var value: OrderedDictionary<String, PropertyListValue> = ["path": .string(row.path), "displayName": .string(row.displayName)]
                if let size = row.thumbnailSize {
                    value["thumbnail"] = .dictionary(["width": .integer(PropertyListInteger(Int64(size.width))),
                                                      "height": .integer(PropertyListInteger(Int64(size.height)))])
                }
                if let data = row.data {
                    var fields: OrderedDictionary<String, PropertyListValue> = [:]
                    fields["firstName"] = data.fields.firstName.map(PropertyListValue.string)
                    fields["lastName"] = data.fields.lastName.map(PropertyListValue.string)
                    fields["displayName"] = data.fields.displayName.map(PropertyListValue.string)
                    fields["favoriteNumber"] = data.fields.favoriteNumber.map(PropertyListValue.real)
                    fields["photo"] = DocumentInspection.imageValue(data.photoSize, bytes: data.fields.photo?.count)
                    value["data"] = .dictionary(fields)
                }
                return .dictionary(value)
            })])
        }

        /// The `.ict` directories in `directory` (and below, with `recursive`), in name order.
        static func documentLocations(in directory: String, recursive: Bool) -> [Location] {
            guard let stream = opendir(directory) else {
                Diagnostics.printError("\(directory): cannot list: \(String(cString: strerror(errno)))")
                return []
            }
            var entries: [(name: String, isDirectory: Bool?)] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard name != ".", name != ".." else { continue }
                // The entry's type when the file system gives it; links and unknowns are looked up.
                let type = Int(entry.pointee.d_type)
                entries.append((name, type == Int(DT_DIR) ? true : type == Int(DT_REG) ? false : nil))
            }
            closedir(stream)
            var locations: [Location] = []
            for entry in entries.sorted(by: { $0.name < $1.name }) {
                let location = Location(folder: directory, name: entry.name)
                guard entry.isDirectory ?? PackageConversion.isDirectory(location.path) else { continue }
                if entry.name.lowercased().hasSuffix(".\(ICTFormat.packageExtension)") {
                    locations.append(location)
                } else if recursive {
                    locations += documentLocations(in: location.path, recursive: true)
                }
            }
            return locations
        }
    }
}

/// Closes a file descriptor (for types with a `close()` of their own).
private func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
}
