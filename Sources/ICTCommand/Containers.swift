import ArgumentParser
import ICTKitTooling
import SystemSupport
import UbiquityContainers

extension Ict {
    /// `ict containers`: the configured ubiquity containers and their engines' state.
    struct Containers: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "containers",
            abstract: "List the ubiquity containers: identifier, folder, sync engine and whether it answers.",
            discussion: """
                The containers configured once in containers.plist (under $XDG_CONFIG_HOME/ictkit, \
                or ~/.config/ictkit) and, first, the folder ICT_UBIQUITY_CONTAINER names \
                (this process's default container). For each: its folder, its engine \
                (syncthing, or folder for a plain folder sync) and the engine's state: \
                for Syncthing, whether its REST API answers (at the address and with the \
                key of its config.xml, or those given) and the Syncthing folder holding \
                the container, with the reason when it does not answer (a warning); a \
                plain folder sync has no state to tell. A configuration that cannot be read \
                is an error naming the file and the line (exit status 1).
                """
        )

        @Option(help: "Seconds to wait for each engine's answer.")
        var timeout: Double = 5

        @Flag(help: "Print one JSON document for programs (Schemas/cli/containers.schema.json).")
        var json = false

        func validate() throws {
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout takes seconds between 0 and 600") }
        }

        func run() throws {
            let report = Self.report(json: json)
            let containers = UbiquityContainers.current
            let all: [UbiquityContainer]
            do throws(UbiquityContainerError) {
                all = try containers.all()
            } catch {
                throw report.fail(Problem(error))
            }
            let defaultIdentifier = (try? containers.container(identifier: nil))?.identifier
            var entries: [Entry] = []
            for container in all {
                var entry = Entry(
                    identifier: container.identifier, folder: container.folderText, engine: container.engine.name,
                    isDefault: container.identifier == defaultIdentifier, state: "-")
                do throws(UbiquityContainerError) {
                    if let endpoint = try UbiquityContainers.syncthingEndpoint(of: container, timeout: timeout) {
                        entry.engineAddress = endpoint.client.address
                        entry.engineFolderID = endpoint.folderID
                        let status = try endpoint.folderStatus()
                        entry.state = "answering"
                        entry.deviceID = status.deviceID
                        entry.connectedDevices = status.peers.filter { status.connected.contains($0) }.count
                        entry.devices = status.peers.count
                    }
                } catch {
                    entry.state = "unknown"
                    entry.reason = error.description
                    report.add(Problem(path: container.folderText, severity: .warning, "\(container.identifier): the engine's state is unknown: \(error)"))
                }
                entries.append(entry)
            }
            report.fields.containers = entries
            if !json {
                var output = StandardOutput()
                output.write(Self.text(entries))
                output.flush()
            }
            try report.finish()
        }

        /// One line per container: identifier, engine and state, folder.
        static func text(_ entries: [Entry]) -> String {
            guard !entries.isEmpty else {
                return "no ubiquity containers (set ICT_UBIQUITY_CONTAINER, or write containers.plist)\n"
            }
            return entries.map { entry in
                var state = entry.state
                if let connected = entry.connectedDevices, let devices = entry.devices {
                    state += ", \(connected) of \(devices) other devices connected"
                }
                // Each field escaped on its own: the tabs between them stay tabs.
                let fields = ["\(entry.identifier)\(entry.isDefault ? " (default)" : "")", entry.engine, state, RawFileName.escaped(entry.folder)]
                return fields.map(TerminalText.escaped).joined(separator: "\t") + "\n"
            }.joined()
        }

        /// One container in the JSON form.
        struct Entry: Encodable {
            var identifier: String
            var folder: String
            var engine: String
            var isDefault: Bool
            var state: String
            var engineAddress: String?
            var engineFolderID: String?
            var deviceID: String?
            var devices: Int?
            var connectedDevices: Int?
            var reason: String?
        }
    }
}

extension Ict.Containers: TypedReportingCommand {
    static let reportName = "containers"

    /// `Schemas/cli/containers.schema.json`.
    struct Fields: ReportFields {
        /// Each container, the process's default (ICT_UBIQUITY_CONTAINER) first.
        var containers: [Entry]?
    }
}
