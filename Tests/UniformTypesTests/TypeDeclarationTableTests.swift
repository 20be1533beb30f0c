import Foundation
import PropertyList
import Testing

@testable import UniformTypes

/// The type tables the build writes give exactly the declarations the
/// Schemas XML gives: the XML is read here by the property-list reader and
/// `TypeDeclarationSet(infoPlist:…)`, a path that shares no code with the
/// table's writer or reader.
struct TypeDeclarationTableTests {
    private func fromXML(_ schema: String, exportedOrigin: TypeOrigin) throws -> TypeDeclarationSet {
        let value = try PropertyListReader().read(Data(try Fixtures.schema(schema).utf8)).value
        return TypeDeclarationSet(infoPlist: value, file: nil, exportedOrigin: exportedOrigin)
    }

    /// Field by field first, so a difference names the type and the field; then whole.
    private func expectEqual(_ table: TypeDeclarationSet, _ xml: TypeDeclarationSet) {
        #expect(table.exported.count == xml.exported.count)
        #expect(xml.findings.isEmpty)
        for (fromTable, fromXML) in zip(table.exported, xml.exported) {
            #expect(fromTable.identifier == fromXML.identifier)
            #expect(fromTable.conformsTo == fromXML.conformsTo, "\(fromXML.identifier)")
            #expect(fromTable.tags == fromXML.tags, "\(fromXML.identifier)")
            #expect(fromTable.typeDescription == fromXML.typeDescription, "\(fromXML.identifier)")
            #expect(fromTable.origin == fromXML.origin, "\(fromXML.identifier)")
            #expect(fromTable.source == fromXML.source, "\(fromXML.identifier)")
            #expect(fromTable.conformsToPaths == fromXML.conformsToPaths, "\(fromXML.identifier)")
            #expect(fromTable.tagPaths == fromXML.tagPaths, "\(fromXML.identifier)")
        }
        #expect(table == xml)
    }

    @Test func systemTableGivesTheXMLsDeclarations() throws {
        expectEqual(TypeDeclarationSet.system, try fromXML("system-types.plist", exportedOrigin: .system))
    }

    @Test func wellKnownAppTableGivesTheXMLsDeclarations() throws {
        expectEqual(TypeDeclarationSet.wellKnownApps, try fromXML("well-known-app-types.plist", exportedOrigin: .wellKnown))
    }

    /// The built-in registry, made once from the tables, equals one made by
    /// adding the XML's declarations one file at a time: every type, tag,
    /// parent and supertype.
    @Test func builtInRegistryEqualsTheOneFromTheXML() throws {
        var fromXML = TypeRegistry()
        fromXML.add(try self.fromXML("system-types.plist", exportedOrigin: .system))
        fromXML.add(try self.fromXML("well-known-app-types.plist", exportedOrigin: .wellKnown))
        let builtIn = TypeRegistry.builtIn
        #expect(builtIn.declarations == fromXML.declarations)
        #expect(builtIn.ignoredDeclarations == fromXML.ignoredDeclarations)
        for declaration in fromXML.declarations {
            #expect(builtIn.supertypes(of: declaration.identifier) == fromXML.supertypes(of: declaration.identifier))
            for (tagClass, tags) in declaration.tags {
                for tag in tags {
                    #expect(
                        builtIn.types(forTag: tag, tagClass: tagClass).map(\.identifier)
                            == fromXML.types(forTag: tag, tagClass: tagClass).map(\.identifier))
                }
            }
        }
    }

    /// A table in the line format, read back: each kind of line lands in its field.
    @Test func readsEachKindOfLine() {
        let table =
            "I\tcom.example.a\nS\tdocs\nD\tAn A\nC\tpublic.data\nK\tpublic.filename-extension\nT\ta\nT\taa\n"
            + "K\tpublic.mime-type\nI\tcom.example.b\nC\tcom.example.a"
        let set = TypeDeclarationSet(typeTable: table, exportedOrigin: .exported)
        #expect(set.exported.map(\.identifier) == ["com.example.a", "com.example.b"])
        let a = set.exported[0]
        #expect(a.source == DeclarationSource(file: nil, keyPath: [.key("UTExportedTypeDeclarations"), .index(0)], reference: "docs"))
        #expect(a.typeDescription == "An A")
        #expect(a.conformsTo == ["public.data"])
        #expect(a.tags == [.filenameExtension: ["a", "aa"], .mimeType: []])
        #expect(
            a.tagPaths[.filenameExtension]?.last
                == [.key("UTExportedTypeDeclarations"), .index(0), .key("UTTypeTagSpecification"), .key("public.filename-extension"), .index(1)])
        #expect(set.exported[1].conformsToPaths == [[.key("UTExportedTypeDeclarations"), .index(1), .key("UTTypeConformsTo"), .index(0)]])
    }

    /// A malformed table is a build bug: reading one stops the program.
    @Test func aLineOfUnknownKindStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = TypeDeclarationSet(typeTable: "I\tcom.example.a\nX\tsomething", exportedOrigin: .exported)
        }
    }

    @Test func aTableNotStartingWithAnIdentifierStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            _ = TypeDeclarationSet(typeTable: "C\tpublic.data", exportedOrigin: .exported)
        }
    }
}
