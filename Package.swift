// swift-tools-version:6.2
// SPDX-License-Identifier: Apache-2.0
// medrender is licensed under the Apache License, Version 2.0 (LICENSE; attributions in NOTICE).
import PackageDescription

let package = Package(
    name: "medrender",
    products: [
        .executable(name: "medrender", targets: ["medrender"]),
        // FFmpeg, Cairo and Pango are linked into this program alone, which medrender runs where it
        // needs them (a video, an M4A/AAC sound), so that every other command maps none of them.
        .executable(name: "medrender-media", targets: ["medrender-media"]),
        .library(name: "Medrender", targets: ["Medrender"]),
        .library(name: "MedrenderCore", targets: ["MedrenderCore"]),
        .library(name: "MedrenderPresets", targets: ["MedrenderPresets"]),
        .library(name: "MedrenderIO", targets: ["MedrenderIO"]),
        .library(name: "MedrenderBuild", targets: ["MedrenderBuild"]),
        .library(name: "MedrenderPreview", targets: ["MedrenderPreview"]),
        .library(name: "MedrenderServer", targets: ["MedrenderServer"]),
        .library(name: "MedrenderVideo", targets: ["MedrenderVideo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // What the server imports of Hummingbird's own dependencies, declared as it imports them.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // C libraries, one system-library target each.
        .systemLibrary(
            name: "CSndFile", pkgConfig: "sndfile",
            providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(
            name: "CSampleRate", pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"])]),
        .systemLibrary(
            name: "CVorbis", pkgConfig: "vorbisenc",
            providers: [.apt(["libvorbis-dev", "libogg-dev"])]),
        .systemLibrary(
            name: "CEBUR128", pkgConfig: "libebur128",
            providers: [.apt(["libebur128-dev"])]),
        // FFmpeg's libraries: M4A/AAC input, video output (not the ffmpeg program). Only
        // MedrenderMedia links them, and through it only medrender-media.
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat libavcodec libavutil libswresample libswscale",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev", "libswscale-dev"])]),
        // Cairo and Pango: the video's frames. MedrenderMedia's, as FFmpeg's.
        .systemLibrary(
            name: "CCairo", pkgConfig: "pangocairo",
            providers: [.apt(["libcairo2-dev", "libpango1.0-dev"])]),

        // Pure Swift: model, time, schedule, plan, DSP, mixer, master chain. Imports Foundation and
        // Synchronization only, no C module (scripts/check-imports holds it to that); its sin, pow
        // and log10 are still the C math library's, through Foundation.
        .target(name: "MedrenderCore"),
        // Presets (YAML) decoded and validated into a Session; the library that finds presets and
        // their sounds; the languages' catalogs. The stock catalogs (the repository's Languages/,
        // linked into the target as Sources/MedrenderPresets/Languages) are compiled in as bytes.
        .target(
            name: "MedrenderPresets",
            dependencies: ["MedrenderCore", .product(name: "Yams", package: "Yams")],
            resources: ["en", "de", "fr", "es", "it", "pt-BR", "pt-PT"].map { Resource.embedInCode("Languages/\($0).yml") }),
        // Files, processes and the audio's C handles: libsndfile, libsamplerate, libvorbis,
        // libebur128. An M4A/AAC sound is decoded by medrender-media and read from its output
        // (`MediaSoundStream`); FFmpeg's decoders are MedrenderMedia's.
        .target(
            name: "MedrenderIO",
            dependencies: ["MedrenderCore", "CSndFile", "CSampleRate", "CVorbis", "CEBUR128"]),
        // The renderer: sounds decoded, the session planned, then mixed to measure, to write, and
        // again where the output needs it (`RenderJob.run`), encoded and put in place; speech,
        // cue sheets, inspection, the typed parameters (`SessionParameters`).
        .target(
            name: "Medrender",
            dependencies: [
                "MedrenderCore", "MedrenderPresets", "MedrenderIO",
                // Speech's cache key (Speech/SpeechCache.swift).
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Library builds: planner, runner, manifest, shards, merge.
        .target(
            name: "MedrenderBuild",
            dependencies: [
                "Medrender", "MedrenderCore", "MedrenderPresets", "MedrenderIO",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ]),
        // The session's timeline as an SVG plot, a preview page (the breathing circle in sync) and
        // the studio's page. The studio's script and style are files (Resources/), compiled into the
        // module as bytes: the program stays one file, with no bundle beside it.
        .target(
            name: "MedrenderPreview", dependencies: ["MedrenderCore"],
            resources: [.embedInCode("Resources/studio.js"), .embedInCode("Resources/studio.css")]),
        // The session's video as medrender asks for it: its settings, the picture each frame shows,
        // and `VideoRender`, which mixes the session and hands the mix and the pictures to
        // medrender-media to draw and encode. No C library.
        .target(
            name: "MedrenderVideo",
            dependencies: ["Medrender", "MedrenderCore", "MedrenderIO", "MedrenderPreview"]),
        // What needs FFmpeg, Cairo and Pango: the breathing circle drawn with Cairo and Pango, the
        // video encoded and an M4A/AAC sound decoded with FFmpeg's libraries. Linked into
        // medrender-media only.
        .target(
            name: "MedrenderMedia",
            dependencies: ["Medrender", "MedrenderCore", "MedrenderIO", "MedrenderPreview", "MedrenderVideo", "CCairo", "CFFmpeg"]),
        // The HTTP service: presets, renders (into a cache, streamed from it as it grows), cue
        // sheets, previews, videos, the studio, a podcast feed.
        .target(
            name: "MedrenderServer",
            dependencies: [
                "Medrender", "MedrenderCore", "MedrenderPresets", "MedrenderPreview", "MedrenderBuild",
                "MedrenderVideo", "MedrenderIO",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .target(
            name: "MedrenderCLI",
            dependencies: [
                "MedrenderServer", .product(name: "Logging", package: "swift-log"),
                "Medrender", "MedrenderBuild", "MedrenderCore", "MedrenderPresets", "MedrenderIO", "MedrenderPreview",
                "MedrenderVideo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(name: "medrender", dependencies: ["MedrenderCLI"]),
        .executableTarget(name: "medrender-media", dependencies: ["MedrenderMedia"]),
        .target(
            name: "MedrenderTestSupport",
            dependencies: ["MedrenderCore", "MedrenderIO"]),

        .testTarget(
            name: "MedrenderCoreTests",
            dependencies: [
                "MedrenderCore", "MedrenderTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "MedrenderPresetsTests",
            dependencies: ["MedrenderPresets", "MedrenderCore", "MedrenderTestSupport"]),
        .testTarget(
            name: "MedrenderIOTests",
            dependencies: ["MedrenderIO", "MedrenderCore", "MedrenderTestSupport"]),
        .testTarget(
            name: "MedrenderTests",
            dependencies: [
                "Medrender", "MedrenderTestSupport", "MedrenderCore", "MedrenderIO", "MedrenderPresets",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]),
        .testTarget(
            name: "MedrenderCLITests",
            dependencies: ["MedrenderCLI", "Medrender", "MedrenderBuild", "MedrenderTestSupport", "MedrenderCore", "MedrenderIO"]),
        .testTarget(
            name: "MedrenderServerTests",
            dependencies: [
                "MedrenderServer", "MedrenderPresets", "MedrenderTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "MedrenderPreviewTests",
            dependencies: ["MedrenderPreview", "MedrenderCore", "MedrenderPresets"]),
        .testTarget(
            name: "MedrenderBuildTests",
            dependencies: ["MedrenderBuild", "Medrender", "MedrenderTestSupport", "MedrenderCore", "MedrenderPresets"]),
        .testTarget(
            name: "MedrenderVideoTests",
            dependencies: ["MedrenderVideo", "Medrender", "MedrenderCore", "MedrenderPreview", "MedrenderPresets"]),
    ],
    swiftLanguageModes: [.v6]
)
