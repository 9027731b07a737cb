-- wrk script for scripts/bench-server: each request asks for another item of the catalogue.
counter = 0
request = function()
    counter = counter + 1
    return wrk.format("GET", "/items/" .. counter)
end
