import ArgumentParser
import ICTKitTooling
import SystemSupport
import UbiquityContainers

extension Ict {
    /// `ict move`: an item moved into a ubiquity container or out of one.
    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move a document into a ubiquity container or out of one, as one coordinated move.",
            discussion: """
                Apple's setUbiquitous(_:itemAt:destinationURL:): when DESTINATION is in a \
                ubiquity container and ITEM is not, ITEM moves in; when ITEM is in one and \
                DESTINATION is not, it moves out. The move is coordinated (the item's \
                presenters, an open document, are told where it went); within one file \
                system it is a rename, across file systems the item is copied whole and \
                then removed. DESTINATION must not exist (nothing is replaced) and its \
                folder must. Moving within a container, or between two places outside any, \
                is refused: use mv. Any failure leaves ITEM where it was (exit status 1).
                """
        )

        @Argument(help: "The item (a file or a package) to move.")
        var item: String

        @Argument(help: "Where it goes (in a container to move in, outside to move out).")
        var destination: String

        @Flag(help: "Print one JSON document for programs (Schemas/cli/move.schema.json).")
        var json = false

        func run() throws {
            let report = Self.report(json: json)
            let source = DocumentSupport.trimmingTrailingSlashes(item)
            let target = DocumentSupport.trimmingTrailingSlashes(destination)
            report.fields.path = source
            report.fields.destination = target
            let containers = UbiquityContainers.current
            do throws(UbiquityContainerError) {
                let inside = try (containers.container(containing: source) != nil, containers.container(containing: target) != nil)
                switch inside {
                case (false, true): report.fields.ubiquitous = true
                case (true, false): report.fields.ubiquitous = false
                case (true, true):
                    throw UbiquityContainerError(.alreadyInContainer, pathText: source, "both it and \(target) are in ubiquity containers: use mv")
                case (false, false):
                    throw UbiquityContainerError(.notInContainer, pathText: source, "neither it nor \(target) is in a ubiquity container: use mv")
                }
                try containers.setUbiquitous(report.fields.ubiquitous ?? false, itemAt: source, destination: target)
            } catch {
                report.fields.ubiquitous = nil
                throw report.fail(Problem(error))
            }
            if !json {
                var output = StandardOutput()
                let direction = report.fields.ubiquitous == true ? "into" : "out of"
                output.write(TerminalText.escaped("moved \(direction) its container: \(RawFileName.escaped(target))") + "\n")
                output.flush()
            }
            try report.finish()
        }
    }
}

extension Ict.Move: TypedReportingCommand {
    static let reportName = "move"

    /// `Schemas/cli/move.schema.json`.
    struct Fields: ReportFields {
        /// The item, as given without trailing slashes.
        var path: String?
        /// Where it went.
        var destination: String?
        /// True when it moved into a container, false when out of one; null when it did not move.
        var ubiquitous: Bool?
    }
}
