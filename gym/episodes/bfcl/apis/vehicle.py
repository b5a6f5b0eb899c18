"""BFCL multi-turn's VehicleControlAPI (upstream vehicle_control.py): engine, doors, climate, brakes, navigation.

Same tools, parameters, return values, error texts and state as upstream, including:
- the outside temperature and current speed are drawn from a `random.Random` seeded by the scenario's
  `random_seed` (default 141053), as upstream;
- the scenario key `engineState` loads the `engine_state` attribute, and the count of unlocked doors is always
  recomputed from the doors' status, whatever the scenario says;
- the parking brake's force, the slope angle and the brake pedal's force are private (not compared), as upstream;
- long-context entries pad some answers with upstream's long_context.py data (`long_context` dict) and keep
  `long_context` (a bool, as upstream) among the compared attributes.
"""

from __future__ import annotations

from gym.episodes.bfcl.apis import Api
from gym.episodes.bfcl.apis.loading import extension, load_attributes

MAX_FUEL_LEVEL = 50
MIN_FUEL_LEVEL = 0.0
MILE_PER_GALLON = 20.0
MAX_BRAKE_FORCE = 1000

DEFAULTS = {
    "random_seed": 141053, "fuelLevel": 0.0, "batteryVoltage": 12.6, "engineState": "stopped",
    "remainingUnlockedDoors": 4, "doorStatus": {"driver": "unlocked", "passenger": "unlocked", "rear_left": "unlocked", "rear_right": "unlocked"},
    "acTemperature": 25.0, "fanSpeed": 50, "acMode": "auto", "humidityLevel": 50.0, "headLightStatus": "off",
    "parkingBrakeStatus": "released", "parkingBrakeForce": 0.0, "slopeAngle": 0.0, "brakePedalStatus": "released",
    "brakePedalForce": 0.0, "distanceToNextVehicle": 50.0, "cruiseStatus": "inactive", "destination": "None",
    "frontLeftTirePressure": 32.0, "frontRightTirePressure": 32.0, "rearLeftTirePressure": 30.0,
    "rearRightTirePressure": 30.0,
}
# Scenario keys loaded under another attribute name.
RENAMED = {"engineState": "engine_state", "parkingBrakeForce": "_parkingBrakeForce", "slopeAngle": "_slopeAngle",
           "brakePedalForce": "_brakePedalForce"}

# Either order of a pair of zip codes gives the same distance in km.
DISTANCES = {
    ("83214", "74532"): 750.0, ("56108", "62947"): 320.0, ("71354", "83462"): 450.0, ("47329", "52013"): 290.0,
    ("69238", "51479"): 630.0, ("94016", "83214"): 980.0, ("94016", "94704"): 600.0, ("94704", "08540"): 2550.0,
    ("94016", "08540"): 1950.0, ("62947", "47329"): 1053.0, ("94016", "62947"): 780.0, ("74532", "94016"): 880.0,
}
ZIPCODES = {
    "Rivermist": "83214", "Stonebrook": "74532", "Maplecrest": "56108", "Silverpine": "62947",
    "Shadowridge": "71354", "Sunset Valley": "83462", "Oakendale": "47329", "Willowbend": "52013",
    "Crescent Hollow": "69238", "Autumnville": "51479", "San Francisco": "94016",
}


class VehicleControlAPI(Api):
    def __init__(self) -> None:
        self.load_scenario({})

    def load_scenario(self, config: dict, long_context: dict | None = None) -> None:
        load_attributes(self, config, DEFAULTS, RENAMED)
        # Upstream loads the scenario's count, then recounts from the doors.
        self.remainingUnlockedDoors = 4 - sum(1 for status in self.doorStatus.values() if status == "locked")
        self.long_context = long_context is not None
        self._extensions = long_context or {}

    def _unlocked_doors(self) -> list:
        return [door for door, status in self.doorStatus.items() if status == "unlocked"]

    def startEngine(self, ignitionMode: str) -> dict:
        if ignitionMode == "STOP":
            self.engine_state = "stopped"
        if self.remainingUnlockedDoors > 0:
            return {"error": "All doors must be locked before starting the engine. Here are the unlocked doors: "
                             + ", ".join(self._unlocked_doors())}
        if self.brakePedalStatus != "pressed":
            return {"error": "Brake pedal needs to be pressed when starting the engine."}
        if self._brakePedalForce != 1000.0:
            return {"error": "Must press the brake fully before starting the engine."}
        if self.fuelLevel < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty."}
        if ignitionMode != "START":
            return {"error": "Invalid ignition mode."}
        self.engine_state = "running"
        return {"engineState": self.engine_state, "fuelLevel": self.fuelLevel, "batteryVoltage": self.batteryVoltage}

    def fillFuelTank(self, fuelAmount: float) -> dict:
        if fuelAmount < 0:
            return {"error": "Fuel amount cannot be negative."}
        if self.fuelLevel + fuelAmount > MAX_FUEL_LEVEL:
            return {"error": "Cannot fill gas above the tank capacity."}
        if self.fuelLevel + fuelAmount < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty. Min fuel level is 0 gallons."}
        self.fuelLevel += fuelAmount
        return {"fuelLevel": self.fuelLevel}

    def lockDoors(self, unlock: bool, door: list) -> dict:
        wanted = "unlocked" if unlock else "locked"
        for name in door:
            if self.doorStatus[name] == wanted:
                continue
            self.doorStatus[name] = wanted
            self.remainingUnlockedDoors += 1 if unlock else -1
        return {"lockStatus": wanted, "remainingUnlockedDoors": self.remainingUnlockedDoors}

    def adjustClimateControl(self, temperature: float, unit: str = "celsius", fanSpeed: int = 50,
                             mode: str = "auto") -> dict:
        if not (0 <= fanSpeed <= 100):
            return {"error": "Fan speed must be between 0 and 100."}
        self.acTemperature = temperature
        if unit == "fahrenheit":
            self.acTemperature = (temperature - 32) * 5 / 9
        self.fanSpeed = fanSpeed
        self.acMode = mode
        # Upstream answers the temperature as given, not the Celsius value it stores.
        return {"currentACTemperature": temperature, "climateMode": mode, "humidityLevel": self.humidityLevel}

    def get_outside_temperature_from_google(self) -> dict:
        temperature = self._random.uniform(-10.0, 40.0)
        if self.long_context:
            weather = extension(self._extensions, "LONG_WEATHER_EXTENSION")
            weather["outsideTemperature"] = temperature
            return weather
        return {"outsideTemperature": temperature}

    def get_outside_temperature_from_weather_com(self) -> dict:
        return {"error": 404}

    def setHeadlights(self, mode: str) -> dict:
        if mode not in ["on", "off", "auto"]:
            return {"error": "Invalid headlight mode."}
        # "auto" turns the lights off, as upstream.
        self.headLightStatus = "on" if mode == "on" else "off"
        return {"headlightStatus": self.headLightStatus}

    def displayCarStatus(self, option: str) -> dict:
        status = {}
        if self.long_context:
            status["metadata"] = extension(self._extensions, "CAR_STATUS_METADATA_EXTENSION")
        views = {
            "fuel": lambda: {"fuelLevel": self.fuelLevel},
            "battery": lambda: {"batteryVoltage": self.batteryVoltage},
            "doors": lambda: {"doorStatus": self.doorStatus},
            "climate": lambda: {"currentACTemperature": self.acTemperature, "fanSpeed": self.fanSpeed,
                                "climateMode": self.acMode, "humidityLevel": self.humidityLevel},
            "headlights": lambda: {"headlightStatus": self.headLightStatus},
            "parkingBrake": lambda: {"parkingBrakeStatus": self.parkingBrakeStatus,
                                     "parkingBrakeForce": self._parkingBrakeForce, "slopeAngle": self._slopeAngle},
            "brakePedal": lambda: {"brakePedalStatus": self.brakePedalStatus,
                                   "brakePedalForce": self._brakePedalForce},
            "engine": lambda: {"engineState": self.engine_state},
        }
        status.update(views[option]() if isinstance(option, str) and option in views else {"error": "Invalid option"})
        return status

    def activateParkingBrake(self, mode: str) -> dict:
        if mode not in ["engage", "release"]:
            return {"error": "Invalid mode"}
        self.parkingBrakeStatus = "engaged" if mode == "engage" else "released"
        self._parkingBrakeForce = 500.0 if mode == "engage" else 0.0
        self._slopeAngle = 10.0
        answer = {"parkingBrakeStatus": self.parkingBrakeStatus, "_parkingBrakeForce": self._parkingBrakeForce,
                  "_slopeAngle": 10.0}
        if self.long_context:
            return {"parkingBrakeInstruction": extension(self._extensions, "PARKING_BRAKE_INSTRUCTION"), **answer}
        return answer

    def pressBrakePedal(self, pedalPosition: float) -> dict:
        if not (0 <= pedalPosition <= 1):
            return {"error": "Pedal position must be between 0 and 1."}
        if pedalPosition == 0:
            return self.releaseBrakePedal()
        force = pedalPosition * MAX_BRAKE_FORCE
        self.brakePedalStatus = "pressed"
        self._brakePedalForce = force
        return {"brakePedalStatus": "pressed", "brakePedalForce": float(force)}

    def releaseBrakePedal(self) -> dict:
        self.brakePedalStatus = "released"
        self._brakePedalForce = 0.0
        return {"brakePedalStatus": "released", "brakePedalForce": 0.0}

    def setCruiseControl(self, speed: float, activate: bool, distanceToNextVehicle: float) -> dict:
        distanceToNextVehicle = float(distanceToNextVehicle)
        speed = float(speed)
        if self.engine_state == "stopped":
            return {"error": "Start the engine before activating the cruise control."}
        # The distance is kept even when the speed is then refused, as upstream.
        self.distanceToNextVehicle = distanceToNextVehicle
        if activate and (speed < 0 or speed > 120 or speed % 5 != 0):
            return {"error": "Invalid speed"}
        self.cruiseStatus = "active" if activate else "inactive"
        return {"cruiseStatus": self.cruiseStatus, "currentSpeed": speed,
                "distanceToNextVehicle": distanceToNextVehicle}

    def get_current_speed(self) -> dict:
        return {"currentSpeed": self._random.uniform(0.0, 120.0)}

    def display_log(self, messages: list) -> dict:
        return {"log": messages}

    def estimate_drive_feasibility_by_mileage(self, distance: float) -> dict:
        return {"canDrive": not (self.fuelLevel * MILE_PER_GALLON < distance)}

    def liter_to_gallon(self, liter: float) -> dict:
        return {"gallon": liter * 0.264172}

    def gallon_to_liter(self, gallon: float) -> dict:
        return {"liter": gallon * 3.78541}

    def estimate_distance(self, cityA: str, cityB: str) -> dict:
        # A scan rather than a lookup: upstream compares, so odd argument types get an answer, not an error.
        known = next((km for pair, km in DISTANCES.items() if pair in ((cityA, cityB), (cityB, cityA))), None)
        answer = {"distance": known} if known is not None else {"error": "distance not found in database."}
        if self.long_context:
            answer["intermediaryCities"] = extension(self._extensions, "INTERMEDIARY_CITIES")
        return answer

    def get_zipcode_based_on_city(self, city: str) -> dict:
        return {"zipcode": next((code for name, code in ZIPCODES.items() if name == city), "00000")}

    def set_navigation(self, destination: str) -> dict:
        self.destination = destination
        return {"status": "Navigating to " + destination}

    def check_tire_pressure(self) -> dict:
        pressures = {name: getattr(self, name) for name in ("frontLeftTirePressure", "frontRightTirePressure",
                                                             "rearLeftTirePressure", "rearRightTirePressure")}
        # The healthy band is the vehicle's own standard, on the mean of the four tyres.
        healthy = 30 <= sum(pressures.values()) / 4 <= 35
        car_info = extension(self._extensions, "CAR_STATUS_METADATA_EXTENSION") if self.long_context else {}
        return {**pressures, "healthy_tire_pressure": healthy, "car_info": car_info}

    def find_nearest_tire_shop(self) -> dict:
        return {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}
