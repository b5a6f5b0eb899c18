"""BFCL multi-turn's TradingBot (upstream trading_bot.py): stock quotes, orders, a watch list and an account.

Same tools, parameters, return values, error texts and state as upstream, including:
- the clock is fixed (2024-09-01 10:30) and transaction timestamps are drawn from a `random.Random` seeded by the
  scenario's `random_seed` (default 1053520), one draw per deposit or withdrawal, uniformly over the following
  day: the same draw as upstream's randint over that day's Unix seconds, without depending on the time zone;
- long-context entries pad some answers with upstream's long_context.py data (`long_context` dict) and keep
  `long_context` (a bool, as upstream) among the compared attributes;
- a few tools answer errors as a list rather than a dict, as upstream.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from gym.episodes.bfcl.apis import Api
from gym.episodes.bfcl.apis.loading import extension, load_attributes

CURRENT_TIME = datetime(2024, 9, 1, 10, 30)
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S"
SECONDS_PER_DAY = 86400

# symbol: price, percent_change, volume, MA(5), MA(20)
_QUOTES = {
    "AAPL": (227.16, 0.17, 2.552, 227.11, 227.09),
    "GOOG": (2840.34, 0.24, 1.123, 2835.67, 2842.15),
    "TSLA": (667.92, -0.12, 1.654, 671.15, 668.20),
    "MSFT": (310.23, 0.09, 3.234, 309.88, 310.11),
    "NVDA": (220.34, 0.34, 1.234, 220.45, 220.67),
    "ALPH": (1320.45, -0.08, 1.567, 1321.12, 1325.78),
    "OMEG": (457.23, 0.12, 2.345, 456.78, 458.12),
    "QUAS": (725.89, -0.03, 1.789, 726.45, 728.00),
    "NEPT": (88.34, 0.19, 0.654, 88.21, 88.67),
    "SYNX": (345.67, 0.11, 2.112, 345.34, 346.12),
    "ZETA": (22.09, -0.05, 0.789, 22.12, 22.34),
}
_QUOTE_FIELDS = ("price", "percent_change", "volume", "MA(5)", "MA(20)")

DEFAULTS = {
    "orders": {
        12345: {"id": 12345, "order_type": "Buy", "symbol": "AAPL", "price": 210.65, "amount": 10,
                "status": "Completed"},
        12446: {"id": 12446, "order_type": "Sell", "symbol": "GOOG", "price": 2840.56, "amount": 5,
                "status": "Pending"},
    },
    "account_info": {"account_id": 12345, "balance": 10000.0, "binding_card": 1974202140965533},
    "authenticated": False,
    "market_status": "Closed",
    "order_counter": 12446,
    "stocks": {symbol: dict(zip(_QUOTE_FIELDS, quote)) for symbol, quote in _QUOTES.items()},
    "watch_list": ["NVDA"],
    "transaction_history": [],
    "random_seed": 1053520,
}

SYMBOLS_BY_NAME = {
    "Apple": "AAPL", "Google": "GOOG", "Tesla": "TSLA", "Microsoft": "MSFT", "Nvidia": "NVDA", "Zeta Corp": "ZETA",
    "Alpha Tech": "ALPH", "Omega Industries": "OMEG", "Quasar Ltd.": "QUAS", "Neptune Systems": "NEPT",
    "Synex Solutions": "SYNX", "Amazon": "AMZN", "Gorilla": "GORI",
}
SECTORS = {"Technology": ["AAPL", "GOOG", "MSFT", "NVDA"], "Automobile": ["TSLA", "F", "GM"]}
SECTOR_EXTENSIONS = {"Technology": "TECHNOLOGY_EXTENSION", "Automobile": "AUTOMOBILE_EXTENSION"}


def _not_logged_in(action: str) -> dict:
    return {"error": f"User not authenticated. Please log in to {action}."}


class TradingBot(Api):
    def __init__(self) -> None:
        self.load_scenario({})

    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        load_attributes(self, config, DEFAULTS)
        # Scenario files key orders by strings; upstream turns the all-digit ones back into ints.
        self.orders = {int(key) if isinstance(key, str) and key.isdigit() else key: order
                       for key, order in self.orders.items()}
        self.long_context = long_context is not None
        self._extensions = long_context or {}

    def _transaction_timestamp(self) -> str:
        moment = CURRENT_TIME + timedelta(seconds=self._random.randint(0, SECONDS_PER_DAY))
        return moment.strftime(TIMESTAMP_FORMAT)

    def _record(self, kind: str, amount) -> None:
        self.transaction_history.append({"type": kind, "amount": amount, "timestamp": self._transaction_timestamp()})

    def get_current_time(self) -> dict:
        return {"current_time": CURRENT_TIME.strftime("%I:%M %p")}

    def get_symbol_by_name(self, name: str) -> dict:
        return {"symbol": SYMBOLS_BY_NAME.get(name, "Stock not found")}

    def get_stock_info(self, symbol: str) -> dict:
        if symbol not in self.stocks:
            return {"error": f"Stock with symbol '{symbol}' not found."}
        if not self.long_context:
            return self.stocks[symbol]
        stock = self.stocks[symbol].copy()
        stock["MA(5)"] = extension(self._extensions, "MA_5_EXTENSION")
        stock["MA(20)"] = extension(self._extensions, "MA_20_EXTENSION")
        return stock

    def get_order_details(self, order_id: int) -> dict:
        if order_id not in self.orders:
            return {"error": f"Order with ID {order_id} not found."
                             + "Here is the list of orders_id: " + str(list(self.orders.keys()))}
        if not self.long_context:
            return self.orders[order_id]
        order = self.orders[order_id].copy()
        symbol = order["symbol"]
        metadata = {}
        for key, template in extension(self._extensions, "ORDER_DETAIL_EXTENSION").items():
            try:
                metadata[key] = template.format(symbol=symbol)
            except KeyError as missing:
                return {"error": f"KeyError during formatting: {missing}"}
        order["metadata"] = metadata
        return order

    def cancel_order(self, order_id: int) -> dict:
        if order_id not in self.orders:
            return {"error": f"Order with ID {order_id} not found."}
        if self.orders[order_id]["status"] == "Completed":
            return {"error": f"Can't cancel order {order_id}. Order is already completed."}
        self.orders[order_id]["status"] = "Cancelled"
        return {"order_id": order_id, "status": "Cancelled"}

    def place_order(self, order_type: str, symbol: str, price: float, amount: int) -> dict:
        if not self.authenticated:
            return _not_logged_in("place an order")
        if symbol not in self.stocks:
            return {"error": f"Invalid stock symbol: {symbol}"}
        if price <= 0 or amount <= 0:
            return {"error": "Price and amount must be positive values."}
        if order_type.lower() == "buy":
            total_cost = float(price) * int(amount)
            balance = self.account_info.get("balance", 0)
            if total_cost > balance:
                return {"error": f"Insufficient funds: required ${total_cost:.2f} but only ${balance:.2f} available."}
        price = float(price)
        order_id = self.order_counter
        self.orders[order_id] = {"id": order_id, "order_type": order_type, "symbol": symbol, "price": price,
                                 "amount": amount, "status": "Open"}
        self.order_counter += 1
        # Upstream answers "Pending" while the stored order says "Open", as if execution were delayed.
        return {"order_id": order_id, "order_type": order_type, "status": "Pending", "price": price,
                "amount": amount}

    def withdraw_funds(self, amount: float) -> dict:
        if not self.authenticated:
            return _not_logged_in("make a transaction")
        if self.market_status != "Open":
            return {"error": "Market is closed. Transactions are not allowed."}
        if amount <= 0:
            return {"error": "Transaction amount must be positive."}
        if amount > self.account_info["balance"]:
            return {"error": "Insufficient funds for withdrawal."}
        self.account_info["balance"] -= amount
        self._record("withdrawal", amount)
        return {"status": "Withdrawal successful", "new_balance": self.account_info["balance"]}

    def get_account_info(self) -> dict:
        if not self.authenticated:
            return _not_logged_in("view account information")
        return self.account_info

    def trading_login(self, username: str, password: str) -> dict:
        # Upstream checks no credentials.
        if self.authenticated:
            return {"status": "Already logged in"}
        self.authenticated = True
        return {"status": "Logged in successfully"}

    def trading_get_login_status(self) -> dict:
        return {"status": bool(self.authenticated)}

    def trading_logout(self) -> dict:
        if not self.authenticated:
            return {"status": "No user is currently logged in"}
        self.authenticated = False
        return {"status": "Logged out successfully"}

    def fund_account(self, amount: float) -> dict:
        if not self.authenticated:
            return _not_logged_in("fund the account")
        if amount <= 0:
            return {"error": "Funding amount must be positive."}
        self.account_info["balance"] += amount
        self._record("deposit", amount)
        return {"status": "Account funded successfully", "new_balance": self.account_info["balance"]}

    def remove_stock_from_watchlist(self, symbol: str) -> dict:
        if not self.authenticated:
            return _not_logged_in("modify the watchlist")
        if symbol not in self.watch_list:
            return {"error": f"Stock {symbol} not found in watchlist."}
        self.watch_list.remove(symbol)
        return {"status": f"Stock {symbol} removed from watchlist successfully."}

    def get_watchlist(self) -> dict | list:
        if not self.authenticated:
            return ["Error: User not authenticated. Please log in to view the watchlist."]
        if self.long_context:
            # Upstream answers a bare list here.
            return self.watch_list + extension(self._extensions, "WATCH_LIST_EXTENSION")
        return {"watchlist": self.watch_list}

    def get_order_history(self) -> dict | list:
        if not self.authenticated:
            return [_not_logged_in("view order history")]
        return {"history": list(self.orders.keys())}

    def get_transaction_history(self, start_date: str | None = None, end_date: str | None = None) -> dict | list:
        if not self.authenticated:
            return [_not_logged_in("view transaction history")]
        start = datetime.strptime(start_date, "%Y-%m-%d") if start_date else datetime.min
        end = datetime.strptime(end_date, "%Y-%m-%d") if end_date else datetime.max
        history = [transaction for transaction in self.transaction_history
                   if start <= datetime.strptime(transaction["timestamp"], TIMESTAMP_FORMAT) <= end]
        if self.long_context:
            history.extend(extension(self._extensions, "TRANSACTION_HISTORY_EXTENSION"))
        return {"transaction_history": history}

    def get_available_stocks(self, sector: str) -> dict:
        stocks = list(SECTORS.get(sector, []))
        if self.long_context and sector in SECTOR_EXTENSIONS:
            stocks.extend(extension(self._extensions, SECTOR_EXTENSIONS[sector]))
        return {"stock_list": stocks}

    def filter_stocks_by_price(self, stocks: list, min_price: float, max_price: float) -> dict:
        kept = [symbol for symbol in stocks
                if self.stocks.get(symbol, {}).get("price", 0) >= min_price
                and self.stocks.get(symbol, {}).get("price", 0) <= max_price]
        return {"filtered_stocks": kept}

    def add_to_watchlist(self, stock: str) -> dict:
        # Unknown symbols are left out silently, as upstream.
        if stock not in self.watch_list and stock in self.stocks:
            self.watch_list.append(stock)
        return {"watchlist": self.watch_list}

    def notify_price_change(self, stocks: list, threshold: float) -> dict:
        moved = [symbol for symbol in stocks
                 if symbol in self.stocks and abs(self.stocks[symbol]["percent_change"]) >= threshold]
        if moved:
            return {"notification": f"Stocks {', '.join(moved)} have significant price changes."}
        return {"notification": "No significant price changes in the selected stocks."}
