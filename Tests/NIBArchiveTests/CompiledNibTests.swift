import Foundation
import NIBArchive
import SystemPackage
import TestSupport
import Testing

@Suite struct CompiledNibTests {
    /// A scratch folder, removed when `body` ends.
    private func withFolder(_ body: (URL) throws -> Void) throws {
        try ScratchFolder.with("CompiledNibTests", body)
    }

    @Test func aFileIsOneMember() throws {
        let nib = try CompiledNib(contentsOfPath: Fixtures.path("PackageListHeader.nib"))
        #expect(nib.members.count == 1)
        guard case .nibArchive(let file) = nib.members[0].contents else { Issue.record("not read as a NIBArchive"); return }
        #expect(file.objects.count == 124)  // nibarchive: 124 objects.
    }

    @Test func aFolderIsEachOfItsNibFiles() throws {
        // An iOS nib folder as ibtool writes it for several deployment targets, made of two fixtures;
        // designable.nib-like XML and a subfolder are left out.
        try withFolder { folder in
            let nib = folder.appendingPathComponent("View.nib")
            try FileManager.default.createDirectory(at: nib.appendingPathComponent("sub"), withIntermediateDirectories: true)
            try Data(try Fixtures.bytes("UIViewController-01J-lp-oVM.nib")).write(to: nib.appendingPathComponent("runtime.nib"))
            try Data(try Fixtures.bytes("01J-lp-oVM-view-Ze5-6b-2t3.nib")).write(to: nib.appendingPathComponent("objects-13.0+.nib"))
            try Data("<?xml version=\"1.0\"?><archive/>".utf8).write(to: nib.appendingPathComponent("designable.nib"))
            let read = try CompiledNib(contentsOf: FilePath(nib.path))
            #expect(read.members.map(\.name) == ["objects-13.0+.nib", "runtime.nib"])
            #expect(try read.members.map { try $0.graph().objects.count } == [15, 18])  // nibarchive: 15 and 18 objects.
        }
    }

    @Test func aKeyedNibFolder() throws {
        try withFolder { folder in
            let nib = folder.appendingPathComponent("MainMenu.nib")
            try FileManager.default.createDirectory(at: nib, withIntermediateDirectories: true)
            try Data(try Fixtures.bytes("keyedobjects.nib")).write(to: nib.appendingPathComponent("keyedobjects.nib"))
            let read = try CompiledNib(contentsOf: FilePath(nib.path))
            #expect(read.members.map(\.name) == ["keyedobjects.nib"])
            #expect(try read.members[0].graph().connections.count == 34)
        }
    }

    @Test func aBrokenMemberIsNamedWithItsOffset() throws {
        try withFolder { folder in
            var bytes = NIBArchiveBuilder().bytes
            bytes[34] = 0xFF
            let path = folder.appendingPathComponent("runtime.nib").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: NIBArchiveError.self) { try CompiledNib(contentsOf: FilePath(folder.path)) }
            #expect(error.path == FilePath(path) && error.byteOffset == 34)
            #expect(error.description.hasPrefix("\(path): byte 34: "))
        }
    }

    @Test func anEmptyFolderOrAMissingFile() throws {
        try withFolder { folder in
            #expect(throws: NIBArchiveError.self) { try CompiledNib(contentsOf: FilePath(folder.path)) }
            let error = try #require(throws: NIBArchiveError.self) {
                try CompiledNib(contentsOf: FilePath(folder.appendingPathComponent("gone.nib").path))
            }
            #expect(error.code == .io)
        }
    }
}
