"""BFCL multi-turn's TwitterAPI (upstream posting_api.py): posting, retweeting, commenting and following.

Same tools, parameters, return values, error texts and state as upstream. Tweets are keyed by int id (a
scenario's string keys are turned into ints as upstream does); comments keep whatever keys the scenario gave and
get int keys when added, as upstream.
"""

from __future__ import annotations

from gym.episodes.bfcl.apis import Api
from gym.episodes.bfcl.apis.loading import load_attributes

DEFAULTS = {
    "username": "john",
    "password": "john123",
    "authenticated": False,
    "tweets": {},
    "comments": {},
    "retweets": {},
    "following_list": ["alice", "bob"],
    "tweet_counter": 0,
}


_UNSET = object()  # an argument not given (None is a value a caller may pass)


def _not_authenticated(action: str) -> dict:
    return {"error": f"User not authenticated. Please authenticate before {action}."}


class TwitterAPI(Api):
    def __init__(self) -> None:
        self._default_tags: list = []
        self._default_mentions: list = []
        self.load_scenario({})

    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        # tweet_counter gives the ids; a scenario may set it past the number of tweets it holds.
        load_attributes(self, config, DEFAULTS)
        self.tweets = {int(key): tweet for key, tweet in self.tweets.items()}

    def authenticate_twitter(self, username: str, password: str) -> dict:
        if username == self.username and password == self.password:
            self.authenticated = True
            return {"authentication_status": True}
        return {"authentication_status": False}

    def posting_get_login_status(self) -> dict:
        return {"login_status": bool(self.authenticated)}

    def post_tweet(self, content: str, tags: list = _UNSET, mentions: list = _UNSET) -> dict:
        if not self.authenticated:
            return _not_authenticated("posting")
        # Upstream's defaults are one shared list each: tweets posted without tags (or mentions) share it, so a
        # mention added to one shows on all of them. gym keeps that sharing within an instance only.
        tags = self._default_tags if tags is _UNSET else tags
        mentions = self._default_mentions if mentions is _UNSET else mentions
        tweet = {"id": self.tweet_counter, "username": self.username, "content": content, "tags": tags,
                 "mentions": mentions}
        self.tweets[self.tweet_counter] = tweet
        self.tweet_counter += 1
        return tweet

    def retweet(self, tweet_id: int) -> dict:
        if not self.authenticated:
            return _not_authenticated("retweeting")
        if tweet_id not in self.tweets:
            return _tweet_not_found(tweet_id)
        mine = self.retweets.setdefault(self.username, [])
        if tweet_id in mine:
            return {"retweet_status": "Already retweeted"}
        mine.append(tweet_id)
        return {"retweet_status": "Successfully retweeted"}

    def comment(self, tweet_id: int, comment_content: str) -> dict:
        if not self.authenticated:
            return _not_authenticated("commenting")
        if tweet_id not in self.tweets:
            return _tweet_not_found(tweet_id)
        self.comments.setdefault(tweet_id, []).append({"username": self.username, "content": comment_content})
        return {"comment_status": "Comment added successfully"}

    def mention(self, tweet_id: int, mentioned_usernames: list) -> dict:
        if tweet_id not in self.tweets:
            return _tweet_not_found(tweet_id)
        self.tweets[tweet_id]["mentions"].extend(mentioned_usernames)
        return {"mention_status": "Users mentioned successfully"}

    def follow_user(self, username_to_follow: str) -> dict:
        if not self.authenticated:
            return _not_authenticated("following")
        if username_to_follow in self.following_list:
            return {"follow_status": False}
        self.following_list.append(username_to_follow)
        return {"follow_status": True}

    def list_all_following(self) -> dict:
        if not self.authenticated:
            return _not_authenticated("listing following")
        return {"following_list": self.following_list}

    def unfollow_user(self, username_to_unfollow: str) -> dict:
        if not self.authenticated:
            return _not_authenticated("unfollowing")
        if username_to_unfollow not in self.following_list:
            return {"unfollow_status": False}
        self.following_list.remove(username_to_unfollow)
        return {"unfollow_status": True}

    def get_tweet(self, tweet_id: int) -> dict:
        if tweet_id not in self.tweets:
            return _tweet_not_found(tweet_id)
        return self.tweets[tweet_id]

    def get_user_tweets(self, username: str) -> list:
        return [tweet for tweet in self.tweets.values() if tweet["username"] == username]

    def search_tweets(self, keyword: str) -> list:
        # The keyword is lowered per tweet, so a bad keyword fails only when there are tweets, as upstream.
        return [tweet for tweet in self.tweets.values()
                if keyword.lower() in tweet["content"].lower() or keyword.lower() in [tag.lower() for tag in tweet["tags"]]]

    def get_tweet_comments(self, tweet_id: int) -> list | dict:
        if tweet_id not in self.tweets:
            return _tweet_not_found(tweet_id)
        return self.comments.get(tweet_id, [])

    def get_user_stats(self, username: str) -> dict:
        return {
            "tweet_count": len(self.get_user_tweets(username)),
            # Upstream knows only its own user's follows.
            "following_count": len(self.following_list) if username == self.username else 0,
            "retweet_count": len(self.retweets.get(username, [])),
        }


def _tweet_not_found(tweet_id) -> dict:
    return {"error": f"Tweet with ID {tweet_id} not found."}
