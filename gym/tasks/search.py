def run(cfg):
    print("search")
