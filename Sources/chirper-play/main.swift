print("chirper-play")
