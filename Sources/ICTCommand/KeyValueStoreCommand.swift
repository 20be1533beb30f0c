import ArgumentParser
import ICTKitTooling
import PropertyList
import SystemSupport
import UbiquitousKeyValueStore
import UbiquityContainers

extension Ict {
    /// `ict kvstore`: a container's iCloud key-value store from the shell.
    struct KeyValueStoreCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "kvstore",
            abstract: "Read and change a ubiquity container's key-value store (NSUbiquitousKeyValueStore's).",
            discussion: """
                The store lives in the container's .ictkit-kvstore folder: a file per device, \
                merged (the latest change of each key wins; docs/kvstore-format.md). The container \
                is --folder, else the one --container names, else ICT_UBIQUITY_CONTAINER's folder \
                or the configured default. A change past Apple's limits (1,024 keys, 64 bytes a \
                key, 1 MB in all) is refused, exit status 1. Another device's file that cannot be \
                read (truncated, corrupt, mid-sync) is skipped with a warning; nothing in it is changed.
                """,
            subcommands: [Get.self, Set.self, Remove.self, List.self, Validate.self]
        )
    }
}

/// The options every `kvstore` subcommand takes: which container, and `--json`.
struct KeyValueStoreOptions: ParsableArguments {
    @Option(help: "The identifier of a configured ubiquity container.")
    var container: String?

    @Option(help: ArgumentHelp("A container's folder, standing as ICT_UBIQUITY_CONTAINER does.", valueName: "folder"))
    var folder: String?

    @Flag(help: "Print one JSON document for programs (Schemas/cli/kvstore.schema.json).")
    var json = false

    func validate() throws {
        guard container == nil || folder == nil else { throw ValidationError("give --container or --folder, not both") }
    }

    /// The store of the container chosen, opened without watching; fails the command when there is none.
    func open(_ report: TypedReport<KeyValueStoreReportFields>) throws -> KeyValueStore {
        let containers = folder.map { UbiquityContainers(configurationPath: nil, environmentFolder: $0) } ?? .current
        let found: UbiquityContainer?
        do throws(UbiquityContainerError) {
            found = try containers.container(identifier: folder == nil ? container : nil)
        } catch {
            throw report.fail(Problem(path: error.pathText, error.place.isEmpty ? error.message : "at \(error.place): \(error.message)"))
        }
        guard let found else {
            let named =
                container.map { "no ubiquity container is configured as \($0)" }
                ?? "no ubiquity container: set ICT_UBIQUITY_CONTAINER, configure one, or give --folder"
            throw report.fail(Problem(path: "ict", named))
        }
        guard (try? FileInfo.of(path: found.folderText))?.kind == .directory else {
            throw report.fail(Problem(path: found.folderText, "the container's folder is not there"))
        }
        let store = KeyValueStore(container: found, watching: false)
        for warning in store.warnings {
            report.add(Problem(path: warning.pathText, severity: .warning, "skipped: \(warning.message)"))
        }
        report.fields.container = found.identifier
        report.fields.store = store.folderText
        report.fields.device = store.deviceToken
        return store
    }
}

/// The `--json` fields of every `kvstore` subcommand (`Schemas/cli/kvstore.schema.json`).
struct KeyValueStoreReportFields: ReportFields {
    /// The container's identifier (for a folder, its path).
    var container: String?
    /// The store's folder in it.
    var store: String?
    /// This device's identity token, naming its file.
    var device: String?
    /// The keys concerned, sorted.
    var entries: [Entry]?

    /// One key's winning change.
    struct Entry: Encodable {
        var key: String
        var value: JSONValue?
        var removed: Bool
        var time: Int64
        var device: String

        init(_ key: String, _ entry: KeyValueStoreEntry) {
            self.key = key
            value = entry.value.map(JSONValue.propertyList)
            removed = entry.value == nil
            time = entry.time
            device = entry.device
        }
    }
}

/// What each `kvstore` subcommand shares: its report's name and fields.
protocol KeyValueStoreSubcommand: TypedReportingCommand where Fields == KeyValueStoreReportFields {}

extension KeyValueStoreSubcommand {
    /// The entries of `keys` as the store holds them now.
    static func entries(_ store: KeyValueStore, _ keys: Swift.Set<String>? = nil) -> [KeyValueStoreReportFields.Entry] {
        store.entries.filter { keys?.contains($0.key) ?? true }.map { KeyValueStoreReportFields.Entry($0.key, $0.entry) }
    }

    /// Writes the store (`synchronize`), failing the command when it cannot.
    static func write(_ store: KeyValueStore, _ report: TypedReport<KeyValueStoreReportFields>) throws {
        guard store.synchronize() else {
            throw report.fail(Problem(path: store.folderText, "cannot write this device's file (no engine identity here, or the folder is not writable)"))
        }
    }

    /// A value as one line: a string as it is, anything else in its JSON form.
    static func text(_ value: PropertyListValue) -> String {
        if case .string(let text) = value { return TerminalText.escaped(text) }
        return String(decoding: (try? JSONPropertyListWriter(prettyPrinted: false).encode(value)) ?? [], as: UTF8.self)
    }
}

extension Ict.KeyValueStoreCommand {
    /// `ict kvstore get KEY`.
    struct Get: ParsableCommand, KeyValueStoreSubcommand {
        static let configuration = CommandConfiguration(commandName: "get", abstract: "Print a key's value (a string as it is, others as JSON).")
        static let reportName = "kvstore get"

        @Argument(help: "The key.") var key: String
        @OptionGroup var options: KeyValueStoreOptions

        func run() throws {
            let report = Self.report(json: options.json)
            let store = try options.open(report)
            report.fields.entries = Self.entries(store, [key])
            guard let value = store.value(forKey: key) else { throw report.fail(Problem(path: store.folderText, "no value for key \(key)")) }
            if !options.json {
                var output = StandardOutput()
                output.write(Self.text(value) + "\n")
                output.flush()
            }
            try report.finish()
        }
    }

    /// `ict kvstore set KEY VALUE`.
    struct Set: ParsableCommand, KeyValueStoreSubcommand {
        static let configuration = CommandConfiguration(commandName: "set", abstract: "Set a key's value and write this device's file.")
        static let reportName = "kvstore set"

        @Argument(help: "The key (at most 64 bytes of UTF-8).") var key: String
        @Argument(help: "The value, read as --type says.") var value: String
        @Option(help: "The value's type: string, integer, float, bool, date, data (base64), json.") var type = "string"
        @OptionGroup var options: KeyValueStoreOptions

        func validate() throws {
            guard ["string", "integer", "float", "bool", "date", "data", "json"].contains(type) else {
                throw ValidationError("--type takes string, integer, float, bool, date, data or json")
            }
        }

        func run() throws {
            let report = Self.report(json: options.json)
            let parsed: PropertyListValue
            do throws(CommandFailure) {
                parsed = try PlutilValueArgument.parse(type: "-" + type, value)
            } catch {
                throw report.fail(Problem(path: "ict", error.message))
            }
            let store = try options.open(report)
            do throws(KeyValueStoreError) {
                try store.set(parsed, forKey: key)
            } catch {
                throw report.fail(Problem(path: error.pathText, "refused: \(error.message)", keyPath: error.key))
            }
            try Self.write(store, report)
            report.fields.entries = Self.entries(store, [key])
            try report.finish()
        }
    }

    /// `ict kvstore remove KEY`.
    struct Remove: ParsableCommand, KeyValueStoreSubcommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a key (a change that wins over older values everywhere).")
        static let reportName = "kvstore remove"

        @Argument(help: "The key.") var key: String
        @OptionGroup var options: KeyValueStoreOptions

        func run() throws {
            let report = Self.report(json: options.json)
            let store = try options.open(report)
            guard store.value(forKey: key) != nil else { throw report.fail(Problem(path: store.folderText, "no value for key \(key)")) }
            store.removeValue(forKey: key)
            try Self.write(store, report)
            report.fields.entries = Self.entries(store, [key])
            try report.finish()
        }
    }

    /// `ict kvstore list`.
    struct List: ParsableCommand, KeyValueStoreSubcommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Print every key and its value, one a line.")
        static let reportName = "kvstore list"

        @Flag(help: "Removed keys too (their removal is kept so it wins over older values).") var removed = false
        @OptionGroup var options: KeyValueStoreOptions

        func run() throws {
            let report = Self.report(json: options.json)
            let store = try options.open(report)
            let entries = store.entries.filter { removed || $0.entry.value != nil }
            report.fields.entries = entries.map { KeyValueStoreReportFields.Entry($0.key, $0.entry) }
            if !options.json {
                var output = StandardOutput()
                for (key, entry) in entries {
                    output.write("\(TerminalText.escaped(key))\t\(entry.value.map(Self.text) ?? "(removed)")\n")
                }
                output.flush()
            }
            try report.finish()
        }
    }

    /// `ict kvstore validate`.
    struct Validate: ParsableCommand, KeyValueStoreSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check the merged store against Apple's limits; each finding is an error naming its key.")
        static let reportName = "kvstore validate"

        @OptionGroup var options: KeyValueStoreOptions

        func run() throws {
            let report = Self.report(json: options.json)
            let store = try options.open(report)
            let findings = UbiquitousKeyValueStoreValidator().findings(in: .dictionary(store.dictionaryRepresentation))
            for finding in findings {
                report.add(Problem(path: store.folderText, finding.message, keyPath: finding.keyPath.description))
            }
            report.fields.entries = []
            if !options.json, findings.isEmpty {
                var output = StandardOutput()
                output.write("\(RawFileName.escaped(store.folderText)): \(store.dictionaryRepresentation.count) keys, within the limits\n")
                output.flush()
            }
            try report.finish()
        }
    }
}
