import Foundation
import MedrenderCore
import MedrenderIO
import MedrenderTestSupport
import Testing

@Suite("AtomicOutputFile")
struct AtomicOutputFileTests {
    @Test("the target appears only at commit, with the bytes, and no temporary file remains")
    func commit() throws {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.file("session.ogg")
        let first: [UInt8] = Array("breathe in ".utf8)
        let second: [UInt8] = Array(0...255) + Array("breathe out".utf8)
        let file = try AtomicOutputFile(path: path)
        #expect(file.path == path)
        try file.write(first)
        try second.withUnsafeBytes { try file.write($0) }
        try file.write([UInt8]())
        try file.write(UnsafeRawBufferPointer(start: nil, count: 0))

        // Before commit: a temporary `.session.ogg.medrender-XXXXXX` beside it, and no target.
        #expect(!FileManager.default.fileExists(atPath: path))
        let name = URL(fileURLWithPath: file.temporaryPath).lastPathComponent
        #expect(URL(fileURLWithPath: file.temporaryPath).deletingLastPathComponent().path == dir.path)
        #expect(name.hasPrefix(".session.ogg.medrender-"))
        #expect(name.count == ".session.ogg.medrender-".count + 6)
        #expect(dir.contents() == [name])

        try file.commit()
        #expect(try fileBytes(path) == first + second)
        #expect(dir.contents() == ["session.ogg"])
        #expect(temporaryLeftovers(in: dir).isEmpty)
        // Readable by everyone, whatever mkstemp's 0600 was.
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
    }

    @Test("commit replaces an existing file")
    func replaces() throws {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.write("out.wav", "old content that is longer than the new one")
        let file = try AtomicOutputFile(path: path)
        try file.write(Array("new".utf8))
        // Until commit the old file is untouched.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old content that is longer than the new one")
        try file.commit()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(temporaryLeftovers(in: dir).isEmpty)
    }

    @Test("an uncommitted file leaves nothing behind and the old target unchanged")
    func uncommitted() throws {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.file("keep.wav")
        let old: [UInt8] = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try writeBytes(old, to: path)
        var temporary = ""
        do {
            let file = try AtomicOutputFile(path: path)
            temporary = file.temporaryPath
            try file.write([UInt8](repeating: 0xAB, count: 10000))
            #expect(FileManager.default.fileExists(atPath: temporary))
        }
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(try fileBytes(path) == old)
        #expect(dir.contents() == ["keep.wav"])

        // With no file there before, nothing appears.
        let fresh = dir.file("fresh.wav")
        do {
            let file = try AtomicOutputFile(path: fresh)
            try file.write(Array("partial".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: fresh))
        #expect(dir.contents() == ["keep.wav"])
    }

    @Test("an uncommitted sound file writer leaves nothing behind")
    func uncommittedWriter() throws {
        let dir = TemporaryDirectory("io-atomic")
        do {
            let file = try AtomicOutputFile(path: dir.file("x.flac"))
            try withExtendedLifetime(file) {
                // The writer uses the file's descriptor without keeping the file: keep it alive by hand.
                let writer = try SoundFileWriter(
                    file: file, container: .flac, sampleFormat: .int16, channels: 2, rate: 48000)
                let samples = sineWave(frames: 4800, rate: 48000, frequencies: [440, 550])
                try samples.withUnsafeBufferPointer { try writer.write($0.baseAddress!, frameCount: 4800) }
                try writer.finish()
                #expect(dir.contents().count == 1)
            }
        }
        #expect(dir.contents().isEmpty)
    }

    @Test("a folder that does not exist cannot be written")
    func missingFolder() {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.file("no/such/folder/out.ogg")
        let error = #expect(throws: IOError.self) { _ = try AtomicOutputFile(path: path) }
        #expect(error?.kind == .cannotCreate)
        #expect(error?.path == path)
        #expect(error?.category == .cannotCreate)
        #expect(dir.contents().isEmpty)
    }

    @Test("a path that is a folder cannot be written")
    func pathIsFolder() throws {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.file("out.ogg")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let error = #expect(throws: IOError.self) { _ = try AtomicOutputFile(path: path) }
        #expect(error?.kind == .cannotCreate)
        #expect(dir.contents() == ["out.ogg"])
    }

    @Test("a name of up to 255 bytes is written (its temporary file then has a short name); a longer one is refused")
    func longNames() throws {
        let dir = TemporaryDirectory("io-atomic")
        let longest = dir.file(String(repeating: "é", count: 125) + ".ogg")  // 254 bytes
        let file = try AtomicOutputFile(path: longest)
        #expect(URL(fileURLWithPath: file.temporaryPath).lastPathComponent.hasPrefix(".medrender-"))
        try file.write(Array("x".utf8))
        try file.commit()
        #expect(FileManager.default.fileExists(atPath: longest))
        let error = #expect(throws: IOError.self) { _ = try AtomicOutputFile(path: dir.file(String(repeating: "b", count: 252) + ".ogg")) }
        #expect(error?.kind == .cannotCreate)
        #expect(error?.description.contains("has a file name of 256 bytes; names are at most 255") == true)
        #expect(dir.contents().count == 1)
    }

    @Test("a parent that is a file, not a folder, says so")
    func parentIsAFile() throws {
        let dir = TemporaryDirectory("io-atomic")
        let plain = dir.write("plain", "x")
        let error = #expect(throws: IOError.self) { _ = try AtomicOutputFile(path: plain + "/out.json") }
        #expect(error?.kind == .cannotCreate)
        #expect(error?.description.contains("is a file, not a folder") == true)
    }

    @Test("a pipe at the target is refused, not replaced by a file")
    func pipeTarget() throws {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.file("out.json")
        #expect(mkfifo(path, 0o644) == 0)
        let error = #expect(throws: IOError.self) { _ = try AtomicOutputFile(path: path) }
        #expect(error?.kind == .cannotCreate)
        #expect(error?.description.contains("is a device or a pipe") == true)
        var status = stat()
        #expect(stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO)
        #expect(dir.contents() == ["out.json"])
    }

    @Test("a file replaced keeps its permissions")
    func keepsPermissions() throws {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.write("out.json", "old")
        chmod(path, 0o600)
        let file = try AtomicOutputFile(path: path)
        try file.write(Array("new".utf8))
        try file.commit()
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self) == "new")
    }

    @Test("a path inside a file cannot be written")
    func parentIsFile() throws {
        let dir = TemporaryDirectory("io-atomic")
        let parent = dir.write("plain", "not a folder")
        let error = #expect(throws: IOError.self) { _ = try AtomicOutputFile(path: "\(parent)/out.ogg") }
        #expect(error?.kind == .cannotCreate)
    }

    /// As root too: the check runs with an ordinary user's permissions (`withFilePermissionsApplied`).
    @Test("a read-only folder cannot be written")
    func readOnlyFolder() throws {
        let dir = TemporaryDirectory("io-atomic")
        let folder = dir.file("locked")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        chmod(folder, 0o555)
        defer { chmod(folder, 0o755) }
        let error = try withFilePermissionsApplied(in: dir) {
            #expect(throws: IOError.self) { _ = try AtomicOutputFile(path: "\(folder)/out.ogg") }
        }
        #expect(error?.kind == .cannotCreate)
        #expect(error?.cause?.isEmpty == false)
    }

    @Test("a commit that cannot rename into place fails as cannotCreate and leaves no temporary file")
    func commitBlocked() throws {
        let dir = TemporaryDirectory("io-atomic")
        let path = dir.file("out.wav")
        let file = try AtomicOutputFile(path: path)
        try file.write(Array("audio".utf8))
        // Someone makes a non-empty folder at the target meanwhile.
        try FileManager.default.createDirectory(atPath: "\(path)/inside", withIntermediateDirectories: true)
        let error = #expect(throws: IOError.self) { try file.commit() }
        #expect(error?.kind == .cannotCreate)
        #expect(temporaryLeftovers(in: dir).isEmpty)
        #expect(dir.contents() == ["out.wav"])
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test("several files in one folder each get their own temporary file")
    func several() throws {
        let dir = TemporaryDirectory("io-atomic")
        let a = try AtomicOutputFile(path: dir.file("same.wav"))
        let b = try AtomicOutputFile(path: dir.file("same.wav"))
        #expect(a.temporaryPath != b.temporaryPath)
        #expect(a.descriptor != b.descriptor)
        try a.write(Array("first".utf8))
        try b.write(Array("second".utf8))
        try a.commit()
        try b.commit()
        // The last commit wins, whole.
        #expect(try String(contentsOfFile: dir.file("same.wav"), encoding: .utf8) == "second")
        #expect(dir.contents() == ["same.wav"])
    }

    @Test("IOError kinds map to error categories, and describe path, message and cause", arguments: [
        (IOError.Kind.missingInput, ErrorCategory.missingInput), (.badData, .badData), (.cannotCreate, .cannotCreate),
        (.io, .io), (.library, .internal),
    ])
    func errorCodes(kind: IOError.Kind, code: ErrorCategory) {
        #expect(IOError(kind, "x").category == code)
    }

    @Test("IOError descriptions")
    func errorDescriptions() {
        #expect(IOError(.io, "writing failed", path: "/tmp/a.wav", cause: "No space left").description
            == "/tmp/a.wav: writing failed (No space left)")
        #expect(IOError(.badData, "is not audio", path: "b.txt").description == "b.txt: is not audio")
        #expect(IOError(.library, "resampling failed", cause: "").description == "resampling failed")
    }
}
