import ArgumentParser
import ICTKitTooling
import SystemSupport
import UbiquityContainers

extension Ict {
    /// `ict status`: each item's sync state as its container's engine tells it.
    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show the sync state of items in ubiquity containers, as their sync engine tells it.",
            discussion: """
                For each item (a file, a package, or a folder, whose state is that of \
                every file inside): its container (configured in containers.plist under \
                $XDG_CONFIG_HOME/ictkit, or ICT_UBIQUITY_CONTAINER) and its state: \
                current (here and on another device), local (only here so far), \
                uploading, downloading with its percentage, waiting (another device has \
                a newer version not yet being fetched), error (with the engine's reason), \
                unknown (the engine is stopped, unreachable, too slow or refused the key: \
                the reason is said at once, never waited for), or - (a plain folder sync, \
                which tells no state). Syncthing's state is read from its REST API, at \
                the address and with the key of its config.xml. An item in no container, \
                or missing, is an error (exit status 1); an unknown state is a warning.
                """
        )

        @Argument(help: "The items (files, packages or folders in ubiquity containers).")
        var items: [String]

        @Option(help: "Seconds to wait for the engine's answer before the state is unknown.")
        var timeout: Double = 5

        @Flag(help: "Print one JSON document for programs (Schemas/cli/status.schema.json).")
        var json = false

        func validate() throws {
            guard !items.isEmpty else { throw ValidationError("name at least one item") }
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout takes seconds between 0 and 600") }
        }

        func run() throws {
            let report = Self.report(json: json)
            let containers = UbiquityContainers.current
            var lines: [String] = []
            var entries: [Entry] = []
            for item in items {
                let path = DocumentSupport.trimmingTrailingSlashes(item)
                guard (try? FileInfo.of(path: path, followingLink: false)) != nil else {
                    report.add(Problem(path: path, "no such file or folder"))
                    continue
                }
                let container: UbiquityContainer?
                do throws(UbiquityContainerError) {
                    container = try containers.container(containing: path)
                } catch {
                    throw report.fail(Problem(error))
                }
                guard let container else {
                    report.add(Problem(path: path, "is in no ubiquity container"))
                    continue
                }
                let state = containers.syncState(ofItemAt: path, timeout: timeout)
                if case .unknown(let reason) = state { report.add(Problem(path: path, severity: .warning, "sync state unknown: \(reason)")) }
                entries.append(Entry(path: path, container: container.identifier, engine: container.engine.name, state: state))
                lines.append("\(TerminalText.escaped(RawFileName.escaped(path)))\t\(state.summary)")
            }
            report.fields.items = entries
            if !json, !lines.isEmpty {
                var output = StandardOutput()
                output.write(lines.map { $0 + "\n" }.joined())
                output.flush()
            }
            try report.finish()
        }

        /// One item's state in the JSON form.
        struct Entry: Encodable {
            var path: String
            var container: String
            var engine: String
            var state: String
            var isUploaded: Bool?
            var isUploading: Bool?
            var isDownloading: Bool?
            var percentDownloaded: Double?
            var percentUploaded: Double?
            var downloadingStatus: String?
            var downloadingError: String?
            var uploadingError: String?
            var reason: String?

            init(path: String, container: String, engine: String, state: UbiquitousItemSyncState) {
                self.path = path
                self.container = container
                self.engine = engine
                self.state = state.summary
                if case .unknown(let reason) = state { self.reason = reason }
                guard let status = state.status else { return }
                isUploaded = status.isUploaded
                isUploading = status.isUploading
                isDownloading = status.isDownloading
                percentDownloaded = status.percentDownloaded
                percentUploaded = status.percentUploaded
                downloadingStatus = status.downloadingStatus.rawValue
                downloadingError = status.downloadingError
                uploadingError = status.uploadingError
            }
        }
    }
}

extension Ict.Status: TypedReportingCommand {
    static let reportName = "status"

    /// `Schemas/cli/status.schema.json`.
    struct Fields: ReportFields {
        /// Each item in a container, with its state.
        var items: [Entry]?
    }
}

extension Problem {
    /// A containers error in the one problem form: a line and column, or a
    /// byte offset, where the configuration's text is wrong; the key path
    /// (`Containers.ID.Path`) where a value is.
    init(_ error: UbiquityContainerError) {
        let place = error.place
        let numbers = place.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        if place.hasPrefix("line "), numbers.count == 2 {
            self.init(path: error.pathText, location: .lineColumn(line: numbers[0], column: numbers[1]), error.message)
        } else if place.hasPrefix("byte "), numbers.count == 1 {
            self.init(path: error.pathText, location: .byte(numbers[0]), error.message)
        } else {
            self.init(path: error.pathText, error.message, keyPath: place.isEmpty ? nil : place)
        }
    }
}
