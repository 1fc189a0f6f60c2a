// SPDX-License-Identifier: Apache-2.0
import Glibc
import MedrenderMedia

exit(MediaTool.main(Array(CommandLine.arguments.dropFirst())))
