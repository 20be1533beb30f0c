/// `inspect`'s report: its `--json` fields.
package enum InspectReport {
    /// `Schemas/cli/inspect.schema.json`: the path and kind, then the field of that kind.
    package struct Fields: ReportFields {
        package var path: String?
        /// `propertyList`, `keyedArchive`, `nib`, `typedStream`, `document`, `package`, `model`, `coreDataStore`, ….
        package var kind: String?
        /// A property list's format.
        package var format: String?
        /// A property list, in its lossless JSON form.
        package var value: JSONValue?
        /// A keyed archive's object graph (`ArchiveGraphView`).
        package var archive: JSONValue?
        package var package: PackageInspection.JSONForm?
        package var document: DocumentInspection.JSONForm?
        /// A typed stream's lossless form and its root decoded.
        package var typedStream: JSONValue?
        /// A Core Data model.
        package var model: JSONValue?
        package var store: StoreCommands.StoreForm?
        package var nib: NibForm?
        /// `--expand`: the embedded archives found, with their key paths and decoded forms.
        package var embedded: JSONValue?

        package init() {}
    }

    /// A compiled nib's graphs, one a member (a NIBArchive file is one, a `.nib` folder may hold several).
    package struct NibForm: Encodable {
        package struct Member: Encodable {
            package var name: String
            /// `NibObjectGraph.jsonForm`.
            package var graph: JSONValue

            package init(name: String, graph: JSONValue) {
                self.name = name
                self.graph = graph
            }
        }

        package var members: [Member]

        package init(members: [Member]) { self.members = members }
    }
}
