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
                Reads only each document's metadata entry (display name and thumbnail), \
                never its data. -r looks into subfolders (not into documents). On a \
                terminal, a progress bar on standard error follows long runs. A document \
                whose metadata cannot be read is reported on standard error and the exit \
                status is 1.
                """
        )

        @Argument(help: "The folder to list.")
        var directory: String

        @Flag(name: [.short, .customLong("recursive")], help: "Also list the documents in subfolders.")
        var recursive = false

        @Flag(help: "Print JSON for programs: one document {documents: [{path, displayName, thumbnail}]}.")
        var json = false

        struct Row {
            var path: String
            var displayName: String
            var thumbnailSize: (width: Int, height: Int)?
        }

        func run() throws {
            let paths = Self.documentPaths(in: DocumentSupport.trimmingTrailingSlashes(directory), recursive: recursive)
            var progress = ProgressBar(total: paths.count)
            var rows: [Row] = []
            var failed = false
            for path in paths {
                do {
                    let document = try ICTDocument(contentsOf: path)
                    let thumbnail = try document.metadata().thumbnail
                    rows.append(Row(path: path, displayName: try document.displayName(),
                                    thumbnailSize: try thumbnail.map { bytes throws(ICTDocumentError) in try PNGImage.size(ofPNG: bytes) }))
                } catch {
                    progress.clear()
                    Diagnostics.printError(DocumentSupport.line(document: path, error))
                    failed = true
                }
                progress.advance()
            }
            progress.clear()
            rows.sort { ($0.displayName.lowercased(), $0.path) < ($1.displayName.lowercased(), $1.path) }
            var output = StandardOutput()
            if json {
                output.write(String(decoding: try JSONPropertyListWriter(prettyPrinted: true).encode(Self.jsonValue(rows)), as: UTF8.self))
                output.write("\n")
            } else {
                output.write(Self.table(rows))
            }
            output.flush()
            if failed { throw ExitCode.failure }
        }

        static func table(_ rows: [Row]) -> String {
            let names = rows.map(\.displayName)
            let sizes = rows.map { $0.thumbnailSize.map { "\($0.width)×\($0.height)" } ?? "none" }
            let nameWidth = max(names.map(\.count).max() ?? 0, "NAME".count)
            let sizeWidth = max(sizes.map(\.count).max() ?? 0, "THUMBNAIL".count)
            func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: width - text.count) }
            var text = "\(pad("NAME", nameWidth))  \(pad("THUMBNAIL", sizeWidth))  PATH\n"
            for (index, row) in rows.enumerated() {
                text += "\(pad(names[index], nameWidth))  \(pad(sizes[index], sizeWidth))  \(row.path)\n"
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
                return .dictionary(value)
            })])
        }

        /// The `.ict` directories in `directory` (and below, with `recursive`), in name order.
        static func documentPaths(in directory: String, recursive: Bool) -> [String] {
            guard let stream = opendir(directory) else {
                Diagnostics.printError("\(directory): cannot list: \(String(cString: strerror(errno)))")
                return []
            }
            var names: [String] = []
            while let entry = readdir(stream) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != ".", name != ".." { names.append(name) }
            }
            closedir(stream)
            var paths: [String] = []
            for name in names.sorted() {
                let path = directory == "/" ? "/" + name : "\(directory)/\(name)"
                guard PackageConversion.isDirectory(path) else { continue }
                if name.lowercased().hasSuffix(".\(ICTFormat.packageExtension)") {
                    paths.append(path)
                } else if recursive {
                    paths += documentPaths(in: path, recursive: true)
                }
            }
            return paths
        }
    }
}

/// A one-line progress bar on standard error, drawn only when it is a
/// terminal and the run is long enough to need one.
struct ProgressBar {
    private let total: Int
    private var done = 0
    private var drawnPercent = -1
    private let isShown: Bool

    init(total: Int) {
        self.total = total
        isShown = total >= 200 && isatty(STDERR_FILENO) == 1
    }

    mutating func advance() {
        done += 1
        guard isShown else { return }
        let percent = done * 100 / total
        guard percent != drawnPercent else { return }
        drawnPercent = percent
        let filled = percent * 30 / 100
        Diagnostics.writeAll(Array("\r[\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(done)/\(total)".utf8), to: STDERR_FILENO)
    }

    mutating func clear() {
        guard isShown, drawnPercent >= 0 else { return }
        Diagnostics.writeAll(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
        drawnPercent = -1
    }
}
