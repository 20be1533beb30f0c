import CoreDataFiles
import Testing

/// `ModelValidator`'s findings, with the expectation written by hand from each model.
@Suite struct ModelValidatorTests {
    typealias Finding = ModelValidator.Finding

    @Test(arguments: ["CartStorage.xcdatamodeld", "CartStorage.momd", "GraphNext.xcdatamodeld", "GraphNext.momd", "Library.xcdatamodel"])
    func realModelsHaveNoFindings(_ fixture: String) throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path(fixture))
        #expect(ModelValidator().validate(document.model, locations: document.locations) == [])
    }

    /// bad/dangling.xcdatamodel: each problem at its line (SOURCES.md says what the file holds).
    @Test func danglingModelFindingsAtTheirLines() throws {
        let document = try ManagedObjectModelReader().readDocument(atPath: ModelFixtures.path("bad/dangling.xcdatamodel"))
        let findings = ModelValidator().validate(document.model, locations: document.locations)
        #expect(
            findings == [
                Finding(severity: .error, entity: "Folder", property: "name", line: 5, message: "a second property named name"),
                Finding(
                    severity: .error, entity: "Folder", property: "notes", line: 6,
                    message: "the inverse Note.container of relationship notes is not a relationship of Note"),
                Finding(
                    severity: .error, entity: "Folder", property: "tags", line: 7,
                    message: "the destination entity Tag of relationship tags is not in the model"),
                Finding(
                    severity: .error, entity: "Note", property: "title", line: 10,
                    message: "attribute title hides the property of the same name of its superentity Base"),
                Finding(
                    severity: .error, entity: "Note", property: "folder", line: 11,
                    message: "the inverse Folder.notes of relationship folder has container as its own inverse, not folder"),
                Finding(severity: .error, entity: "Note", line: 13, message: "a second entity named Note; the first is entity 2 (line 9)"),
            ])
    }

    /// A model made in code (no lines): the checks a reader cannot refuse at once.
    @Test func modelMadeInCode() {
        let model = ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "A", superentityName: "C",
                    attributes: [AttributeDescription(name: "blob", type: .undefined)],
                    relationships: [
                        RelationshipDescription(name: "bs", destinationEntityName: "B", inverseName: "a", isToMany: true, minCount: 5, maxCount: 2)
                    ],
                    fetchIndexes: [FetchIndexDescription(name: "byNothing", elements: [.init(property: "nothing")])]),
                EntityDescription(
                    name: "B", superentityName: "A",
                    relationships: [RelationshipDescription(name: "a", destinationEntityName: "A", inverseName: "other", maxCount: 1)]),
                EntityDescription(name: "C", superentityName: "B"),
                EntityDescription(
                    name: "D", relationships: [RelationshipDescription(name: "loose", destinationEntityName: "D", maxCount: 1)]),
            ],
            configurations: ["Sync": ["A", "Z"]])
        let findings = ModelValidator().validate(model)
        #expect(
            findings == [
                Finding(severity: .error, entity: "A", message: "it inherits from itself: A → C → B → A"),
                Finding(severity: .error, entity: "A", property: "blob", message: "attribute blob has an undefined type but is not transient"),
                Finding(severity: .error, entity: "A", property: "bs", message: "the minimum count 5 of relationship bs is above its maximum 2"),
                Finding(
                    severity: .error, entity: "A", property: "bs",
                    message: "the inverse B.a of relationship bs has other as its own inverse, not bs"),
                Finding(severity: .error, entity: "A", message: "fetch index byNothing names nothing, which is not a property of A"),
                Finding(
                    severity: .error, entity: "B", property: "a",
                    message: "the inverse A.other of relationship a is not a relationship of A"),
                Finding(
                    severity: .warning, entity: "D", property: "loose",
                    message: "relationship loose has no inverse (Core Data warns: the object graph can become inconsistent)"),
                Finding(severity: .error, entity: "Z", message: "configuration Sync names entity Z, which is not in the model"),
            ])
        #expect(ModelValidator.firstInheritanceCycle(in: model)?.chain == ["A", "C", "B", "A"])
    }

    @Test func findingsDescribeTheirPlace() {
        let finding = Finding(severity: .warning, entity: "Note", property: "title", line: 12, message: "m")
        #expect(finding.description == "line 12, entity Note, property title: warning: m")
    }
}
