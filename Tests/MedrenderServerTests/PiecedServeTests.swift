import Foundation
import MedrenderTestSupport
import Testing

/// The service streams an OGG encoded in pieces (two threads of the server's) with the bytes the
/// command line writes to a file by default (pieces on every core), and streams on four; on one
/// thread (`--threads 1`) the command line writes one encoder's stream.
@Suite struct PiecedServeTests {
    @Test func theStreamIsTheFileWhateverTheThreads() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        // Two minutes at 16 kHz stereo: pieces of about 25 s, four splices.
        let streamed = try server.get("/render?preset=box-breath&minutes=2&rate=16000&format=ogg")
        #expect(streamed.status == 200)
        let options = ["--preset", "box-breath", "--minutes", "2", "--rate", "16000"]
        let file = try ServeTests.cliBytes(server.dir, options, ext: "ogg")
        let piped = try ServeTests.cliBytes(server.dir, options + ["--threads", "4"], ext: "ogg", streamed: true)
        let one = try ServeTests.cliBytes(server.dir, options + ["--threads", "1"], ext: "ogg")
        #expect(one.count > 10_000 && one != file, "--threads 1 wrote the pieced stream")
        #expect(file.count > 10_000)
        let sameAsFile = streamed.body == file, sameAsPipe = streamed.body == piped
        #expect(sameAsFile, "the stream (\(streamed.body.count) bytes) differs from the file (\(file.count) bytes)")
        #expect(sameAsPipe, "the stream (\(streamed.body.count) bytes) differs from -o - on 4 threads (\(piped.count) bytes)")
    }
}
