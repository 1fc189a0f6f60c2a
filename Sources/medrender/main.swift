import MedrenderCLI

MedrenderCommand.start()
